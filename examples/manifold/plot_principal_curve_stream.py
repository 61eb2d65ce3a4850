"""
=========================================
A principal curve learned from a stream
=========================================

:class:`~skonline.manifold.SequentialPrincipalCurve` (Guedj & Li's *slpc*)
keeps a polygonal line through the middle of the data. As each point arrives,
the line changes locally: one vertex near the new point is moved, inserted or
deleted, or the line stays as it is. Each point is first scored with the
current curve (its squared distance, the *prequential* loss) and only then
used to update it.

This example draws the curve at several times, in the style of Figure 8 of the
paper, on two synthetic streams:

* the paper's synthetic 2-D curve ``y = 0.05 (x − 5)³`` with Gaussian noise,
  points arriving in random order;
* one arc of scikit-learn's ``make_moons``, also in random order.

The loss rewards any segment that passes near the data. So a greedy search
that changes one vertex per point can end up with folds: long segments that
cross the data cloud and then come back. The ``length_penalty`` extension
(a cost per lattice step of curve length, the length term of the paper's
Lemma 3) removes them.
"""

# %%
# The curve at several times on the cubic
# ---------------------------------------
# The black dots are the points seen so far and the red dot is the next one.
# The green line is the curve that will score the red dot. Top row: the
# defaults (the paper's objective). Bottom row: ``length_penalty=0.5`` (the
# true curve is 17.6 long).
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from skonline.manifold import SequentialPrincipalCurve

rng = np.random.default_rng(0)
u = rng.uniform(0.0, 10.0, 200)
X = np.c_[u, 0.05 * (u - 5.0) ** 3] + 0.1 * rng.standard_normal((200, 2))


def snapshots(X, times, **params):
    """Stream ``X`` in chunks that end at ``times``; the vertices at each of them."""
    est = SequentialPrincipalCurve(random_state=0, **params)
    shots, start = {}, 0
    for t in times:
        est.partial_fit(X[start:t])
        shots[t] = est.vertices_
        start = t
    return est, shots


times = [10, 50, 100, 199]
fig, axes = plt.subplots(2, 4, figsize=(14, 6.5), sharex=True, sharey=True)
for row, params in zip(axes, [{}, {"length_penalty": 0.5}], strict=True):
    est, shots = snapshots(X, times, lattice_spacing=0.1, **params)
    for ax, t in zip(row, times, strict=True):
        ax.scatter(*X[:t].T, s=6, c="k")
        ax.scatter(*X[t], s=30, c="r")
        ax.plot(*shots[t].T, "g-o", ms=3, lw=2)
        ax.set_title(f"t = {t}, {shots[t].shape[0] - 1} segments")
    print(
        f"{params or 'defaults'}: cumulative loss {est.cumulative_loss_:.2f}, "
        f"R² {est.r2_score(X):.4f}, length {est.length_:.1f}"
    )
fig.tight_layout()

# %%
# The prequential loss of each point
# ----------------------------------
# A point in a region the curve has not reached yet has a large loss. Once the
# curve covers the data, the losses fall to the noise level.
# ``keep_history=True`` records them.
est = SequentialPrincipalCurve(lattice_spacing=0.1, random_state=0, keep_history=True).fit(X)
fig, ax = plt.subplots(figsize=(7, 3))
ax.semilogy(np.arange(1, len(X) + 1), np.maximum(est.loss_history_, 1e-6), ".")
ax.set_xlabel("t")
ax.set_ylabel("prequential loss")
fig.tight_layout()

# %%
# One arc of ``make_moons``
# -------------------------
# The arc is about 3.3 long; here the length is capped at 4.5 (``max_length``,
# the paper's class constraint ``Len(f) ≤ L``; ``length_penalty=0.5`` still
# leaves a 9-long zigzag on this lattice of spacing 0.03). ``transform`` gives
# every point its arc-length coordinate along the curve, and new points get
# coordinates on the same scale.
Xm, y = make_moons(600, noise=0.06, random_state=0)
Xm = Xm[y == 0]
times = [20, 80, 160, 299]
est, shots = snapshots(Xm, times, lattice_spacing=0.03, max_length=4.5)
fig, axes = plt.subplots(1, 4, figsize=(14, 3.2), sharex=True, sharey=True)
for ax, t in zip(axes, times, strict=True):
    ax.scatter(*Xm[:t].T, s=6, c="k")
    ax.scatter(*Xm[t], s=30, c="r")
    ax.plot(*shots[t].T, "g-", lw=2)
    ax.set_title(f"t = {t}")
fig.tight_layout()
arc = est.transform(Xm)[:, 0]
fig, ax = plt.subplots(figsize=(5, 3))
ax.scatter(*Xm.T, c=arc, s=8)
ax.plot(*est.vertices_.T, "k-", lw=1)
ax.set_title("arc-length coordinate (transform)")
fig.tight_layout()
print(f"moon: R² {est.r2_score(Xm):.4f}, {est.n_segments_} segments")
plt.show()
