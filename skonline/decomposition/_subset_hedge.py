"""Adaptive best subset of experts: capped Hedge with fixed share.

Yuan & Lamperski, "Online Adaptive Principal Component Analysis and Its
Extensions", ICML 2019, Algorithm 1 (Theorem 1); with ``alpha = 0`` it is
Warmuth & Kuzmin's capped Hedge (JMLR 2008, Algorithm 3).

At each step the learner picks ``n - k`` of ``n`` experts whose losses it pays
(equivalently it keeps ``k`` experts out of the sum: the learner wants the
``k`` *highest*-loss experts there, as PCA keeps the high-variance
directions), then sees the loss vector ``l_t ∈ [0, 1]^n``. It is the
diagonal case of online PCA: a row ``x`` on the coordinate axes has
``l = x²``.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np

from .._legacy_base import OnlineEstimator
from ..utils._capping import capped_hedge_step, sample_corner
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._online_pca import _as_generator

__all__ = ["AdaptiveSubsetHedge"]


class AdaptiveSubsetHedge(OnlineEstimator):
    """Adaptive best subset of experts (Yuan & Lamperski, Algorithm 1).

    Keeps weights ``w`` in the capped simplex
    ``{w : sum w = 1, 0 <= w_i <= 1/(n-k)}`` over the experts that **pay**
    (the discarded ones). Per loss vector ``l`` (eq. 4a-c, with the
    normaliser ``sum_j w_j exp(-eta l_j)``, erratum E1)::

        v ∝ w exp(-eta l);   w^ = alpha/n + (1 - alpha) v;   w <- cap_(n-k)(w^)

    A subset drawn from ``w`` (mixture decomposition, Alg. 2) pays
    ``(n-k) wᵀl`` in expectation. For losses in ``[0, 1]``, on every interval
    ``[r, s]`` (the proof's sharp form)::

        (1 - e^-eta) A_rs - eta B_rs <= (n-k) [ln(n/alpha) + (s-r+1) ln(1/(1-alpha))]

    with ``A_rs`` the learner's expected loss and ``B_rs`` the loss of the
    best fixed ``(n-k)``-subset on the interval (the sum of its ``n-k``
    smallest cumulative losses); tuned (Theorem 1) the adaptive regret is at
    most ``sqrt(2LD) + D``, ``D = (n-k) ln(n(1+(n-k)T)) + 1``. ``O(n log n)``
    time per step, ``O(n)`` memory; weights are kept as logarithms.

    Parameters
    ----------
    n_kept : int, default=1
        ``k``, the number of loss-free experts; ``1 <= k < n``.

    learning_rate : float, default=1.0
        ``eta > 0``.

    alpha : float, default=1e-5
        Fixed-share rate in ``[0, 1)``; ``0`` is capped Hedge.

    sampler : {"decomposition", "systematic"}, default="decomposition"
        How :meth:`sample_subset` draws.

    keep_history : bool, default=False
        Store the per-step expected losses in ``expected_losses_``.

    random_state : int, RandomState instance, Generator or None, default=None
        Only for :meth:`sample_subset`.

    Attributes
    ----------
    weights_ : ndarray of shape (n_experts,)
        ``w``: the probability that each expert pays is ``(n-k) w_i``.

    kept_ : ndarray of int of shape (n_kept,)
        The ``k`` experts with the smallest weights (the deterministic choice;
        the experts whose losses are left out, i.e. the high-loss ones).

    discarded_ : ndarray of int of shape (n_experts - n_kept,)
        The others (the loss-paying subset).

    cumulative_expected_loss_ : float
        Sum of ``(n-k) wᵀl_t``, each before its update.

    expected_losses_ : ndarray of shape (n_steps_,)
        Only with ``keep_history=True``.

    n_steps_ : int

    n_features_in_ : int
        Number of experts.

    Examples
    --------
    >>> import numpy as np
    >>> from skonline.decomposition import AdaptiveSubsetHedge
    >>> rng = np.random.default_rng(0)
    >>> losses = rng.uniform(size=(200, 5)) * [1, 1, 0.1, 0.1, 0.1]
    >>> hedge = AdaptiveSubsetHedge(n_kept=2).partial_fit(losses)
    >>> hedge.discarded_.tolist(), hedge.kept_.tolist()  # pay the 3 cheapest, keep out 2
    ([2, 3, 4], [0, 1])
    """

    _private_state = ("_log_w", "_n_kept")

    _parameter_constraints: ClassVar[dict] = {
        "n_kept": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, 1, closed="left")],
        "sampler": [StrOptions({"decomposition", "systematic"})],
        "keep_history": ["boolean"],
        "random_state": ["random_state"],
    }

    @property
    def _constant_memory(self):
        return not self.keep_history

    def __init__(
        self,
        n_kept=1,
        *,
        learning_rate=1.0,
        alpha=1e-5,
        sampler="decomposition",
        keep_history=False,
        random_state=None,
    ):
        self.n_kept = n_kept
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.sampler = sampler
        self.keep_history = keep_history
        self.random_state = random_state

    def _validate_batch(self, X, y, first_call):
        if not first_call and self._n_kept != self.n_kept:
            raise ValueError("n_kept changed since the first partial_fit; call fit to restart.")
        X, y = super()._validate_batch(X, y, first_call)
        n = X.shape[1]
        if not 1 <= self.n_kept < n:
            raise ValueError(
                f"n_kept={self.n_kept} must be between 1 and n_experts - 1 = {n - 1}; "
                f"the loss vectors have {n} feature(s)."
            )
        return X, y

    def _init_state(self, X, y):
        n = X.shape[1]
        self._n_kept = int(self.n_kept)
        self._log_w = np.full(n, -np.log(n))
        self.n_steps_ = 0
        self.cumulative_expected_loss_ = 0.0
        if self.keep_history:
            self.expected_losses_ = np.zeros(0)

    def _update(self, X, y):
        X = np.ascontiguousarray(X, dtype=np.float64)
        d = X.shape[1] - self._n_kept
        log_w, cum = self._log_w, self.cumulative_expected_loss_
        losses = np.empty(X.shape[0])
        for i, loss_vector in enumerate(X):
            loss = d * float(np.exp(log_w) @ loss_vector)
            losses[i] = loss
            cum += loss
            log_w = capped_hedge_step(
                log_w, loss_vector, float(self.learning_rate), d, alpha=float(self.alpha)
            )
        self._log_w, self.cumulative_expected_loss_ = log_w, cum
        self.n_steps_ += X.shape[0]
        if self.keep_history:
            self.expected_losses_ = np.concatenate([self.expected_losses_, losses])

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, loss_vectors, y=None):
        """One step per loss vector, in order.

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)
            Any finite losses are accepted (the update is well defined in the
            log domain); the guarantees need losses in ``[0, 1]``.
        y : Ignored

        Returns
        -------
        self : object
        """
        return self._online_partial_fit(loss_vectors)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, loss_vectors, y=None):
        """Forget everything, then :meth:`partial_fit`.

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)
        y : Ignored

        Returns
        -------
        self : object
        """
        return self._online_fit(loss_vectors)

    @property
    def weights_(self):
        """ndarray of shape (n_experts,): the capped weights ``w``."""
        self._check_fitted()
        return np.exp(self._log_w)

    @property
    def kept_(self):
        """ndarray of int: the ``k`` experts with the smallest weights, by index."""
        self._check_fitted()
        return np.sort(np.argsort(self._log_w, kind="stable")[: self._n_kept])

    @property
    def discarded_(self):
        """ndarray of int: the ``n - k`` loss-paying experts, by index."""
        self._check_fitted()
        return np.sort(np.argsort(self._log_w, kind="stable")[self._n_kept :])

    def expected_loss(self, loss_vectors):
        """``(n-k) wᵀl`` for each loss vector under the current weights (no update).

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)

        Returns
        -------
        losses : ndarray of shape (n_steps,)
        """
        L = self._validate_predict(loss_vectors)
        d = self.n_features_in_ - self._n_kept
        return d * (np.asarray(L, dtype=np.float64) @ np.exp(self._log_w))

    def score(self, loss_vectors, y=None):
        """Negative mean expected loss under the current weights (greater is better).

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)
        y : Ignored

        Returns
        -------
        score : float
        """
        return -float(np.mean(self.expected_loss(loss_vectors)))

    def sample_subset(self, random_state=None):
        """Draw the loss-paying subset as Alg. 1 steps 3-5 do.

        Parameters
        ----------
        random_state : int, Generator, RandomState or None
            ``None`` uses the estimator's ``random_state``.

        Returns
        -------
        discarded : ndarray of int of shape (n_experts - n_kept,)
        """
        self._check_fitted()
        rng = _as_generator(self.random_state if random_state is None else random_state)
        w = np.exp(self._log_w)
        d = w.shape[0] - self._n_kept
        return sample_corner(w / w.sum(), d, rng, sampler=self.sampler)
