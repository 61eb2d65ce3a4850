"""Adaptive best subset of experts: capped Hedge with fixed share.

Yuan & Lamperski, "Online Adaptive Principal Component Analysis and Its
Extensions", ICML 2019, Algorithm 1 (Theorem 1); with ``fixed_share=0`` it is
Warmuth & Kuzmin's capped Hedge (JMLR 2008, Algorithm 3).

At each step the learner picks ``n - k`` of ``n`` experts whose losses it pays
(equivalently it keeps ``k`` experts out of the sum: the learner wants the
``k`` *highest*-loss experts there, as PCA keeps the high-variance
directions), then sees the loss vector ``l_t ∈ [0, 1]^n``. It is the
diagonal case of online PCA: a row ``x`` on the coordinate axes has
``l = x²``.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import ClassVar

import numpy as np

from ..base import OnlineEstimator, OnlineLossMixin, ParamRecord
from ..utils._random import RANDOM_STATE_OR_GENERATOR, as_generator
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._capping_kernels import sample_corner
from ._subset_hedge_kernels import HedgeState, hedge_pass

__all__ = ["AdaptiveSubsetHedge"]


@dataclass(frozen=True)
class HedgeFrozen(ParamRecord):
    """The parameters that shape the hedge's state (every other one is live)."""

    n_kept: int
    keep_history: bool


class AdaptiveSubsetHedge(OnlineLossMixin, OnlineEstimator):
    """Adaptive best subset of experts (Yuan & Lamperski, Algorithm 1).

    Keeps weights ``w`` in the capped simplex
    ``{w : sum w = 1, 0 <= w_i <= 1/(n-k)}`` over the experts that **pay**
    (the discarded ones). Per loss vector ``l`` (eq. 4a-c, with the
    normaliser ``sum_j w_j exp(-eta l_j)``, erratum E1)::

        v ∝ w exp(-eta l);   w^ = a/n + (1 - a) v;   w <- cap_(n-k)(w^)        (a = fixed_share)

    A subset drawn from ``w`` (mixture decomposition, Alg. 2) pays
    ``(n-k) wᵀl`` in expectation. For losses in ``[0, 1]``, on every interval
    ``[r, s]`` (the proof's sharp form)::

        (1 - e^-eta) A_rs - eta B_rs <= (n-k) [ln(n/a) + (s-r+1) ln(1/(1-a))]

    with ``A_rs`` the learner's expected loss and ``B_rs`` the loss of the
    best fixed ``(n-k)``-subset on the interval (the sum of its ``n-k``
    smallest cumulative losses); tuned (Theorem 1) the adaptive regret is at
    most ``sqrt(2LD) + D``, ``D = (n-k) ln(n(1+(n-k)T)) + 1``. ``O(n log n)``
    time per step, ``O(n)`` memory; weights are kept as logarithms.

    Read more in the :ref:`User Guide <online_pca>`.

    Parameters
    ----------
    n_kept : int, default=1
        ``k``, the number of loss-free experts; ``1 <= k < n``. Fixed at the
        first call.

    learning_rate : float, default=1.0
        ``eta > 0``.

    fixed_share : float, default=1e-5
        Fixed-share rate ``a`` in ``[0, 1)``; ``0`` is capped Hedge.

    sampler : {"decomposition", "systematic"}, default="decomposition"
        How :meth:`sample_subset` draws.

    keep_history : bool, default=False
        Store the per-step expected losses in ``loss_history_``. Fixed at the
        first call.

    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the random generator of :meth:`sample_subset` (the only use).

    verbose : int, default=0
        Progress on ``sys.stderr`` (:ref:`progress`): ``1`` shows a bar with
        the rows per second and the time left during :meth:`fit` in a terminal
        or a notebook, at most ten lines elsewhere; ``2`` adds the mean loss so
        far and one line per :meth:`partial_fit` call. The state learned is
        the same.

    Attributes
    ----------
    weights_ : ndarray of shape (n_experts,)
        ``w``: the probability that each expert pays is ``(n-k) w_i``.

    kept_ : ndarray of int of shape (n_kept,)
        The ``k`` experts with the smallest weights (the deterministic choice;
        the experts whose losses are left out, i.e. the high-loss ones).

    discarded_ : ndarray of int of shape (n_experts - n_kept,)
        The others (the loss-paying subset).

    cumulative_loss_ : float
        Sum of ``(n-k) wᵀl_t``, each before its update.

    loss_history_ : ndarray of shape (n_samples_seen_,)
        The per-step expected losses; only with ``keep_history=True``.

    n_samples_seen_ : int
        Loss vectors processed so far.

    n_features_in_ : int
        Number of experts.

    See Also
    --------
    AdaptiveOnlinePCA : The same update on the eigenvalues of a density matrix.

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

    _parameter_constraints: ClassVar[dict] = {
        "verbose": ["verbose"],
        "n_kept": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "fixed_share": [Interval(Real, 0, 1, closed="left")],
        "sampler": [StrOptions({"decomposition", "systematic"})],
        "keep_history": ["boolean"],
        "random_state": RANDOM_STATE_OR_GENERATOR,
    }

    @property
    def _constant_memory(self):  # type: ignore[override]  # the history grows with the stream
        return not self.keep_history

    def __init__(
        self,
        n_kept=1,
        *,
        learning_rate=1.0,
        fixed_share=1e-5,
        sampler="decomposition",
        keep_history=False,
        random_state=None,
        verbose=0,
    ):
        self.n_kept = n_kept
        self.learning_rate = learning_rate
        self.fixed_share = fixed_share
        self.sampler = sampler
        self.keep_history = keep_history
        self.random_state = random_state
        self.verbose = verbose

    _frozen_record: ClassVar[type[ParamRecord]] = HedgeFrozen

    def _validate_batch(self, X, y, first_call, **fit_params):
        X, y = self._check_training_data(X, y, first_call)
        n = X.shape[1]
        if not 1 <= self.n_kept < n:
            raise ValueError(
                f"n_kept={self.n_kept} must be between 1 and n_experts - 1 = {n - 1}; "
                f"the loss vectors have {n} feature(s)."
            )
        return X, y, {}

    def _init_state(self, X, y, **kwargs):
        n = X.shape[1]
        return HedgeState(
            log_w=np.full(n, -np.log(n)),
            loss_history=np.zeros(0) if self.keep_history else None,
        )

    def _partial_fit_state(self, state, X, y, **kwargs):
        new, _ = hedge_pass(
            state,
            X,
            n_kept=state.frozen.n_kept,
            learning_rate=self.learning_rate,
            fixed_share=self.fixed_share,
        )
        return new

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, loss_vectors, y=None):
        """One step per loss vector, in order.

        The whole batch is validated first; if anything fails the estimator
        is left as it was.

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)
            The loss vectors, in stream order. Any finite losses are accepted
            (the update is well defined in the log domain); the guarantees
            need losses in ``[0, 1]``.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self : object
            The estimator, updated.
        """
        return self._online_partial_fit(loss_vectors)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, loss_vectors, y=None):
        """Forget everything, then one step per loss vector, in order.

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)
            The loss vectors, in stream order.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._online_fit(loss_vectors)

    def _order(self):
        return np.argsort(self._fitted_state().log_w, kind="stable")

    @property
    def weights_(self):
        """The capped weights ``w``."""
        return np.exp(self._fitted_state().log_w)

    @property
    def kept_(self):
        """The ``k`` experts with the smallest weights, by index."""
        k = self._fitted_state().frozen.n_kept
        return np.sort(self._order()[:k])

    @property
    def discarded_(self):
        """The ``n - k`` loss-paying experts, by index."""
        k = self._fitted_state().frozen.n_kept
        return np.sort(self._order()[k:])

    def expected_loss(self, loss_vectors):
        """``(n-k) wᵀl`` for each loss vector under the current weights (no update).

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)
            The loss vectors to score.

        Returns
        -------
        losses : ndarray of shape (n_steps,)
            The expected loss of each vector.
        """
        L = self._validate_predict(loss_vectors)
        state = self._fitted_state()
        d = self.n_features_in_ - state.frozen.n_kept
        return d * (np.asarray(L, dtype=np.float64) @ np.exp(state.log_w))

    def score(self, loss_vectors, y=None):
        """Negative mean expected loss under the current weights (greater is better).

        Parameters
        ----------
        loss_vectors : array-like of shape (n_steps, n_experts)
            The loss vectors to score.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        score : float
            The negative mean expected loss.
        """
        return -float(np.mean(self.expected_loss(loss_vectors)))

    def sample_subset(self, random_state=None):
        """Draw the loss-paying subset as Alg. 1 steps 3-5 do.

        Parameters
        ----------
        random_state : int, Generator, RandomState or None, default=None
            Source of the uniform draw; ``None`` uses the estimator's
            ``random_state``.

        Returns
        -------
        discarded : ndarray of int of shape (n_experts - n_kept,)
            The experts whose losses are paid, sorted.
        """
        state = self._fitted_state()
        rng = as_generator(self.random_state if random_state is None else random_state)
        w = np.exp(state.log_w)
        d = w.shape[0] - state.frozen.n_kept
        return sample_corner(w / w.sum(), d, rng, sampler=self.sampler)
