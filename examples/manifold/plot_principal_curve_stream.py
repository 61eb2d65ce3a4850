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

This example streams two clouds in random order, with the estimator's
defaults, and draws the curve next to a batch principal curve
(Hastie & Stuetzle's, as R's ``princurve`` computes it) fitted on all the
points at once (:func:`~skonline.manifold.hastie_stuetzle_curve`):

* the paper's synthetic 2-D curve ``y = 0.05 (x − 5)³`` with Gaussian noise
  (true length 17.6);
* two clusters of points on two facing arcs, with empty space between them.

The paper's objective (the squared distance alone) rewards any segment that
passes near the data, so a curve that folds through the cloud scores better
than the true one. The defaults price the curve's length and its turns
relative to the current loss, which gives the curve a user would draw.
"""

# %%
# The curve at several times on the cubic
# ---------------------------------------
# The grey dots are the points seen so far and the red dot is the next one.
# The green line is the curve that will score the red dot; the blue line is
# the batch curve of all the points.
import matplotlib.pyplot as plt
import numpy as np

from skonline.datasets import make_curve_stream
from skonline.manifold import SequentialPrincipalCurve, hastie_stuetzle_curve

X, _ = make_curve_stream(1000, kind="cubic", noise=0.1, random_state=0)
batch_curve = hastie_stuetzle_curve(X)


def snapshots(X, times, **params):
    """Stream ``X`` in chunks that end at ``times``; the vertices at each of them."""
    est = SequentialPrincipalCurve(random_state=0, **params)
    shots, start = {}, 0
    for t in times:
        est.partial_fit(X[start:t])
        shots[t] = est.vertices_
        start = t
    return est, shots


def draw_snapshots(X, times, batch):
    """The curve after each of ``times`` rows, next to the batch curve of all rows."""
    est, shots = snapshots(X, times)
    fig, axes = plt.subplots(1, len(times), figsize=(14, 3.4), sharex=True, sharey=True)
    for ax, t in zip(axes, times, strict=True):
        ax.scatter(*X[:t].T, s=4, c="0.6")
        ax.scatter(*X[t], s=30, c="r")
        ax.plot(*batch.T, "b-", lw=1)
        ax.plot(*shots[t].T, "g-o", ms=3, lw=2)
        ax.set_title(f"t = {t}, {shots[t].shape[0] - 1} segments")
    fig.tight_layout()
    return est


est = draw_snapshots(X, [20, 60, 200, 999], batch_curve)
print(
    f"cubic: length {est.length_:.1f} (true 17.6, batch curve "
    f"{np.sum(np.linalg.norm(np.diff(batch_curve, axis=0), axis=1)):.1f}), "
    f"prequential loss per point {est.cumulative_loss_ / len(X):.4f}"
)

# %%
# The defaults against the paper's objective
# ------------------------------------------
# With the length and turn prices off (``length_penalty=0, turn_penalty=0``,
# and the other extensions: one move per point, the paper's local grid, every
# past point stored), the curve folds across the noise: its squared distance
# to the points is *below* the noise level of the true curve, and it is many
# times too long.
paper = dict(
    length_penalty=0.0, turn_penalty=0.0, warm_up_moves=0, clip_grid=False, max_memory=None
)
folded = SequentialPrincipalCurve(random_state=0, **paper).fit(X)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharex=True, sharey=True)
for ax, fitted, title in zip(
    axes, [est, folded], ["defaults", "the paper's objective"], strict=True
):
    ax.scatter(*X.T, s=4, c="0.6")
    ax.plot(*fitted.vertices_.T, "g-", lw=1.5)
    msd = -np.mean(fitted.score_samples(X))
    ax.set_title(f"{title}: length {fitted.length_:.0f}, MSD {msd:.4f}")
fig.tight_layout()

# %%
# A clustered cloud
# -----------------
# Two arcs with empty space between them. The curve follows each arc and
# crosses the gap once; no vertex leaves the data.
Xa, _ = make_curve_stream(1000, kind="arcs", noise=0.3, random_state=0)
arcs = draw_snapshots(Xa, [20, 100, 300, 999], hastie_stuetzle_curve(Xa))

# %%
# The arc-length coordinate
# -------------------------
# ``transform`` gives every point the arc length of its projection on the
# curve; new points get coordinates on the same scale.
coordinate = arcs.transform(Xa)[:, 0]
fig, ax = plt.subplots(figsize=(5, 3.4))
ax.scatter(*Xa.T, c=coordinate, s=6)
ax.plot(*arcs.vertices_.T, "k-", lw=1)
ax.set_title("arc-length coordinate (transform)")
fig.tight_layout()
print(f"arcs: length {arcs.length_:.1f}, R² {arcs.r2_score(Xa):.3f}")

# %%
# The prequential loss of each point
# ----------------------------------
# A point in a region the curve has not reached yet has a large loss. Once the
# curve covers the data, the losses fall to the noise level.
# ``keep_history=True`` records them.
est = SequentialPrincipalCurve(random_state=0, keep_history=True).fit(X)
fig, ax = plt.subplots(figsize=(7, 3))
ax.semilogy(np.arange(1, len(X) + 1), np.maximum(est.loss_history_, 1e-6), ".", ms=2)
ax.set_xlabel("t")
ax.set_ylabel("prequential loss")
fig.tight_layout()
plt.show()
