"""Loading the paper's LIBSVM data sets from files the user already has (no download)."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_svmlight_file

__all__ = ["load_libsvm_split"]


def load_libsvm_split(path, *, train_fraction=0.7, random_state=0, n_features=None):
    """Read an svmlight/LIBSVM file and split it as in Luo et al. (2019), §6.2.

    A random permutation with a fixed seed, then the first
    ``floor(train_fraction · n)`` rows for training (in that order) and the
    rest for testing; labels are mapped to ``±1`` when there are two classes.
    Nothing is downloaded: ``path`` must be a local file (for example a9a,
    gisette or rcv1 from the LIBSVM site, fetched by the user).

    Parameters
    ----------
    path : str or path-like
        A local svmlight/LIBSVM file.
    train_fraction : float, default=0.7
        Fraction of the rows used for training.
    random_state : int, default=0
        Seed of the permutation.
    n_features : int, default=None
        Passed to :func:`sklearn.datasets.load_svmlight_file` (use it when the
        test file has fewer columns than the training file).

    Returns
    -------
    X_train : sparse matrix of shape (n_train, n_features)
        Training rows (CSR), in the order of the permutation.
    X_test : sparse matrix of shape (n_samples - n_train, n_features)
        Test rows (CSR).
    y_train : ndarray of shape (n_train,)
        Training labels (``±1`` for two classes).
    y_test : ndarray of shape (n_samples - n_train,)
        Test labels.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> from sklearn.datasets import dump_svmlight_file
    >>> from skonline.datasets import load_libsvm_split
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.svm")
    >>> dump_svmlight_file(np.eye(10), np.arange(10) % 2, path)
    >>> X_train, X_test, y_train, y_test = load_libsvm_split(path)
    >>> X_train.shape, np.unique(y_train).tolist()
    ((7, 10), [-1.0, 1.0])
    """
    X, y = load_svmlight_file(str(path), n_features=n_features)
    classes = np.unique(y)
    if classes.shape[0] == 2:
        y = np.where(y == classes[1], 1.0, -1.0)
    order = np.random.default_rng(random_state).permutation(X.shape[0])
    n_train = int(np.floor(train_fraction * X.shape[0]))
    train, test = order[:n_train], order[n_train:]
    return X[train], X[test], y[train], y[test]
