"""One vocabulary: a parameter or attribute name means the same thing in every estimator.

Every parameter name used by two or more public estimators must be listed in
``SHARED`` with the words its documentation must contain in each of them; names
that drifted before 0.1.0 must not come back.
"""

import inspect

import pytest
from numpydoc.docscrape import ClassDoc

import skonline
from skonline.decomposition import AdaptiveSubsetHedge


def _estimators():
    out = [getattr(skonline, name) for name in skonline.__all__]
    out = [c for c in out if inspect.isclass(c)]
    return [*out, AdaptiveSubsetHedge]


ESTIMATORS = _estimators()

#: name -> words (lower case) that each estimator's description of it must contain (any one).
SHARED = {
    "alpha0": ("ridge",),
    "n_components": ("dimension", "components", "directions", "kept"),
    "sketch_size": ("sketch",),
    "sketch": ("curvature",),
    "curvature": ("second derivative", "accumulates"),
    "learning_rate": ("learning rate", "η", "eta"),
    "fixed_share": ("fixed-share", "fixed share"),
    "loss": ("loss",),
    "epsilon": ("threshold", "insensitive", "huber"),
    "loss_bound": ("bound on", "upper bound"),
    "horizon": ("horizon", "``t``"),
    "fit_intercept": ("intercept", "constant"),
    "max_iter": ("passes",),
    "shuffle": ("shuffle",),
    "random_state": ("seed", "random", "generator"),
    "warm_start": ("warm", "continues"),
    "keep_history": ("history",),
    "row_norm": ("norm",),
    "eigenvalue_floor": ("floor",),
    "transform_mode": ("transform",),
    "sampler": ("sampl",),
    "solver": ("solver", "stored"),
    "buffer": ("buffer",),
    "skip_zero_rows": ("zero",),
    "compaction": ("compaction", "decomposed"),
    "variant": ("variant", "algorithm", "fd", "coordinate"),
    "center": ("centre", "center", "mean"),
    "potential_width": ("potential",),
    "mu": ("μ", "assumption"),
    "bound": ("constraint",),
    "intercept_scaling": ("constant feature",),
    "buffer_init": ("buffer",),
    "solve_rtol": ("singular",),
    "time_counter": ("counter", "``t``"),
    "rank_tol": ("rank",),
    "readout_ridge": ("ridge",),
    "multi_class": ("one-vs-rest", "softmax", "multinomial"),
    "class_weight": ("weights of the classes",),
    "calibration": ("temperature scaling",),
    "center_target": ("target",),
    "clip_predictions": ("targets learned so far",),
    "forgetting_factor": ("drift", "memory of about"),
    "verbose": ("progress",),
    "scale_features": ("units",),
    "whiten": ("explained_variance_",),
    "sparse_solver": ("csr",),
}

#: Names that meant several things before 0.1.0 and are gone for good.
RETIRED_PARAMETERS = {"alpha", "eta", "eta0", "loss_budget", "theory"}
RETIRED_ATTRIBUTES = {
    "n_steps_",
    "t_",
    "cumulative_expected_loss_",
    "expected_losses_",
    "losses_",
    "realized_losses_",
}
SCIKIT_LEARN_LOSSES = {
    "squared_error",
    "log_loss",
    "hinge",
    "huber",
    "epsilon_insensitive",
    "absolute_error",
    "smooth_hinge",  # no scikit-learn equivalent
}


def _param_docs(cls):
    doc = ClassDoc(cls)
    return {p.name: " ".join(p.desc).lower() for p in doc["Parameters"]}


def _attribute_names(cls):
    doc = ClassDoc(cls)
    return {a.name for a in doc["Attributes"]} | {
        name for name, value in vars(cls).items() if isinstance(value, property)
    }


def test_every_shared_name_has_one_declared_meaning():
    users = {}
    for cls in ESTIMATORS:
        for name in cls().get_params(deep=False):
            users.setdefault(name, []).append(cls.__name__)
    undeclared = {n: u for n, u in users.items() if len(u) > 1 and n not in SHARED}
    assert not undeclared, f"shared parameters without a declared meaning: {undeclared}"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_shared_parameters_mean_the_same_thing(cls):
    docs = _param_docs(cls)
    for name in cls().get_params(deep=False):
        assert name in docs, f"{cls.__name__}: parameter {name} is not documented"
        if name in SHARED:
            words = SHARED[name]
            assert any(w in docs[name] for w in words), (
                f"{cls.__name__}.{name}: the description does not say {words}: {docs[name]!r}"
            )


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_retired_names_are_gone(cls):
    params = set(cls().get_params(deep=False))
    assert not params & RETIRED_PARAMETERS, f"{cls.__name__}: {params & RETIRED_PARAMETERS}"
    attrs = _attribute_names(cls)
    assert not attrs & RETIRED_ATTRIBUTES, f"{cls.__name__}: {attrs & RETIRED_ATTRIBUTES}"
    for name, constraints in getattr(cls, "_parameter_constraints", {}).items():
        for constraint in constraints:
            options = getattr(constraint, "options", set())
            assert "theory" not in options, f"{cls.__name__}.{name}: use 'auto', not 'theory'"
            if name == "loss":
                assert options <= SCIKIT_LEARN_LOSSES, f"{cls.__name__}: loss names {options}"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_one_counter_and_one_cumulative_loss(cls):
    attrs = _attribute_names(cls)
    assert "n_samples_seen_" in attrs, f"{cls.__name__} does not count rows in n_samples_seen_"
    if "cumulative_loss_" in attrs or any("loss" in a and a.endswith("_") for a in attrs):
        losses = {a for a in attrs if a.endswith("loss_") and a.startswith("cumulative")}
        assert "cumulative_loss_" in losses, f"{cls.__name__}: {losses}"
