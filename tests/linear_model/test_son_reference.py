"""RFDSONClassifier / RFDSONRegressor against a literal, slow transcription of the paper.

The reference below is a deliberately naive transcription of Algorithm 6 of
Luo, Chen, Zhang, Li & Zhang, "Robust Frequent Directions with Application in
Online Learning" (JMLR 2019), run in the SON order of the spec (§2.14):

* the buffer starts as ``m`` literal zero rows (``B^(0) = 0^{m x d}``) and grows by
  ``np.vstack`` one row per step; when it holds ``2m`` rows it is compacted with
  ``np.linalg.svd`` (``alpha += sigma_m^2 / 2`` for RFD);
* ``H = B^T B + alpha I`` is formed explicitly as a ``d x d`` matrix;
* the Newton step is ``u = w - H^+ g`` (``np.linalg.pinv`` / ``np.linalg.solve``);
* the projection onto ``K_t = {|w^T x_t| <= C}`` in the ``H^(t-1)``-norm is the closed
  form ``w = u - tau_C(u^T x) H^{-1} x / (x^T H^{-1} x)`` when ``H`` is nonsingular
  and, when ``alpha = 0``, the paper's ``argmin`` over ``{w_1, w_2}`` (Appendix A)
  with the corrected projector ``P = V V^T`` in ``w_2`` (spec Appendix Z item 9),
  or the printed ``P = V Sigma^{-2} V^T`` for the negative control;
* ``eta_t = eta0 / t`` with ``t`` counted from 1, ``mu`` from spec §2.16.

FULL-ON uses the exact ``H = alpha0 I + sum_t c_t g_t g_t^T`` and diagonal AdaGrad
follows spec §2.15. The closed-form projections are also checked against a
generic constrained solver (``scipy.optimize``) on recorded steps.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from skonline.linear_model import RFDSONClassifier, RFDSONRegressor

RTOL = 1e-10  # relative agreement required between the estimator and the transcription
SOLVE_RTOL = 1e-10  # spec §4 item 3: alpha <= SOLVE_RTOL * lambda_max(B B^T) counts as zero
RANK_RTOL = 1e-7  # singular values of B below RANK_RTOL * sigma_1 count as zero
NULL_TOL = 1e-10  # spec §4 item 4: ||(I - P) x||^2 > NULL_TOL ||x||^2 selects w_2


# ----------------------------------------------------------------------------- losses
def _loss(name, p, y):
    """``(l(p; y), l'(p; y))`` from the table of spec §2.16, written out independently."""
    if name == "squared":
        return (p - y) ** 2, 2.0 * (p - y)
    if name == "logistic":
        return np.log1p(np.exp(-y * p)), -y / (1.0 + np.exp(y * p))
    if name == "hinge":
        return (1.0 - y * p, -y) if y * p < 1.0 else (0.0, 0.0)
    if name == "smooth_hinge":
        if y * p >= 1.0:
            return 0.0, 0.0
        if y * p <= 0.0:
            return 0.5 - y * p, -y
        return 0.5 * (1.0 - y * p) ** 2, -y * (1.0 - y * p)
    raise AssertionError(name)


def _mu_auto(name, C):
    """Assumption 2's constant: min l'' / max l'^2 over |p| <= C (spec §2.16)."""
    if C is None:
        return 0.0
    if name == "squared":
        return 1.0 / (8.0 * C**2)
    if name == "logistic":
        return np.exp(-C)
    return 0.0


def _tau(z, C):
    return np.sign(z) * max(abs(z) - C, 0.0)


# ------------------------------------------------------------------- the transcription
class _Sketch:
    """Paper Alg. 6 lines 6-15: literal zero rows, ``np.vstack``, SVD at ``2m`` rows."""

    def __init__(self, d, m, alpha0, robust, zero_rows):
        self.d, self.m, self.robust = d, m, robust
        self.B = np.zeros((m if zero_rows else 0, d))  # B^(0) = 0^{m x d}
        self.alpha = float(alpha0)
        self.shrinkage = 0.0
        self.compactions = 0

    def H(self):
        return self.B.T @ self.B + self.alpha * np.eye(self.d)

    def singular(self):
        lam_max = np.linalg.norm(self.B, 2) ** 2 if self.B.shape[0] else 0.0
        return not (self.alpha > 0 and self.alpha > SOLVE_RTOL * lam_max)

    def add(self, g, c):
        Bhat = np.vstack([self.B, np.sqrt(c) * g])
        if Bhat.shape[0] == 2 * self.m:
            _, s, Vt = np.linalg.svd(Bhat, full_matrices=False)
            sm2 = s[self.m - 1] ** 2 if s.shape[0] >= self.m else 0.0
            k = min(self.m - 1, s.shape[0])
            self.B = np.sqrt(np.maximum(s[:k] ** 2 - sm2, 0.0))[:, None] * Vt[:k]
            self.shrinkage += sm2
            self.compactions += 1
            if self.robust:
                self.alpha += sm2 / 2.0
        else:
            self.B = Bhat

    def newton(self, g):
        H = self.H()
        if self.singular():
            return np.linalg.pinv(self.B.T @ self.B, rcond=RANK_RTOL**2, hermitian=True) @ g
        return np.linalg.solve(H, g)

    def project(self, u, x, C, printed_w2=False):
        """Returns ``(w, branch)``; the projection uses the current (previous-step) H."""
        tz = _tau(u @ x, C)
        if tz == 0.0:
            return u, "inside"
        H = self.H()
        if not self.singular():
            h = np.linalg.solve(H, x)
            return u - tz * h / (x @ h), "woodbury"
        # alpha = 0 (Appendix A): condensed SVD B = U Sigma V^T, H^+ = V Sigma^{-2} V^T
        if self.B.shape[0]:
            _, s, Vt = np.linalg.svd(self.B, full_matrices=False)
            r = int(np.sum(s > RANK_RTOL * s[0])) if s[0] > 0 else 0
        else:
            s, Vt, r = np.zeros(0), np.zeros((0, self.d)), 0
        V, s = Vt[:r].T, s[:r]
        H_pinv = V @ np.diag(s**-2.0) @ V.T
        P = H_pinv if printed_w2 else V @ V.T  # printed: V Sigma^{-2} V^T; corrected: V V^T
        candidates = []
        h = H_pinv @ x
        if x @ h > 0:
            candidates.append((u - tz * h / (x @ h), "w1"))
        px = x - P @ x
        denom = x @ x - x @ P @ x
        usable = denom != 0.0 if printed_w2 else px @ px > NULL_TOL * (x @ x)
        if usable:
            candidates.append((u - tz * px / denom, "w2"))
        dist = [(w - u) @ H @ (w - u) for w, _ in candidates]
        return candidates[int(np.argmin(dist))]


class _Full:
    """FULL-ON with the exact ``H = alpha0 I + sum_t c_t g_t g_t^T`` (spec §2.11)."""

    def __init__(self, d, alpha0):
        self.Hm = alpha0 * np.eye(d)
        self.alpha, self.shrinkage, self.compactions = np.nan, 0.0, 0

    def add(self, g, c):
        self.Hm = self.Hm + c * np.outer(g, g)

    def newton(self, g):
        return np.linalg.solve(self.Hm, g)

    def project(self, u, x, C, printed_w2=False):
        tz = _tau(u @ x, C)
        if tz == 0.0:
            return u, "inside"
        h = np.linalg.solve(self.Hm, x)
        return u - tz * h / (x @ h), "full"

    def H(self):
        return self.Hm


class _Diag:
    """Diagonal AdaGrad (spec §2.15): D = alpha0 + sqrt(sum g^2), step 1, D-norm projection."""

    def __init__(self, d, alpha0):
        self.alpha0, self.s = alpha0, np.zeros(d)
        self.alpha, self.shrinkage, self.compactions = np.nan, 0.0, 0

    def D(self):
        return self.alpha0 + np.sqrt(self.s)

    def add(self, g, c):
        self.s = self.s + g * g

    def newton(self, g):
        return g / self.D()

    def project(self, u, x, C, printed_w2=False):
        tz = _tau(u @ x, C)
        if tz == 0.0:
            return u, "inside"
        h = x / self.D()
        return u - tz * h / (x @ h), "diag"

    def H(self):
        return np.diag(self.D())


def reference_son(
    X,
    y,
    *,
    loss="squared",
    sketch="rfd",
    m=4,
    alpha0=0.0,
    eta0=1.0,
    mu="auto",
    C=1.0,
    fit_intercept=False,
    zero_rows=True,
    skip_zero_rows=False,
    printed_w2=False,
    record=False,
):
    """One online pass of the sketched online Newton step, transcribed from the paper.

    ``y`` holds the +-1 (classification) or real (regression) targets of the loss.
    """
    X = np.asarray(X, dtype=float)
    if fit_intercept:  # the intercept is a constant feature that takes part in the sketch
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    n, d = X.shape
    mu = _mu_auto(loss, C) if mu == "auto" else mu
    if sketch in ("rfd", "fd"):
        curv = _Sketch(d, m, alpha0, robust=sketch == "rfd", zero_rows=zero_rows)
    elif sketch == "full":
        curv = _Full(d, alpha0)
    else:
        curv = _Diag(d, alpha0)
    u = np.zeros(d)  # w^(1) = u^(1) = 0
    out = {"losses": [], "predictions": [], "branches": [], "compactions": [], "alphas": []}
    steps = []
    for t in range(1, n + 1):  # eta_t = eta0 / t with 1-based t
        x = X[t - 1]
        if C is None:
            w, branch = u, "none"
        else:  # SON order: project onto K_t with H^(t-1) before predicting
            w, branch = curv.project(u, x, C, printed_w2)
        if record and branch != "inside":
            steps.append({"u": u.copy(), "x": x.copy(), "H": curv.H(), "w": w, "branch": branch})
        p = w @ x
        value, deriv = _loss(loss, p, y[t - 1])
        out["losses"].append(value)
        out["predictions"].append(p)
        out["branches"].append(branch)
        if deriv == 0.0 and skip_zero_rows:
            u = w
        else:
            g = deriv * x
            curv.add(g, mu + eta0 / t)  # row sqrt(mu + eta_t) g: H^(t-1) -> H^(t)
            u = w - curv.newton(g)  # u^(t+1) = w^(t) - (H^(t))^+ g^(t)
        out["compactions"].append(curv.compactions)
        out["alphas"].append(curv.alpha)
    out.update(
        u=u,
        alpha=curv.alpha,
        shrinkage=curv.shrinkage,
        compactions=np.array(out["compactions"]),
        losses=np.array(out["losses"]),
        predictions=np.array(out["predictions"]),
        steps=steps,
        curvature=curv,
    )
    return out
