"""RFD-SON with the paper's settings as the defaults (Luo et al. 2019, §6.2).

The estimators' defaults are chosen for users (log loss, a scaled ridge, target
centring, Hessian curvature for the regressor); the tests of the paper's
algorithm run it as printed: squared loss on ``±1`` labels, gradient curvature,
``alpha0 = 0`` (RFD0), ``bound = 1``, raw features and targets.
"""

from skonline.linear_model import RFDSONClassifier as _Classifier
from skonline.linear_model import RFDSONRegressor as _Regressor

PAPER = {
    "loss": "squared_error",
    "curvature": "gradient",
    "alpha0": 0.0,
    "bound": 1.0,
    "scale_features": False,
}


class RFDSONClassifier(_Classifier):
    """:class:`skonline.linear_model.RFDSONClassifier` with the paper's defaults."""

    def __init__(
        self,
        loss="squared_error",
        *,
        sketch="rfd",
        curvature="gradient",
        sketch_size=10,
        alpha0=0.0,
        learning_rate=1.0,
        mu="auto",
        bound=1.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        scale_features=False,
        buffer_init="zeros",
        skip_zero_rows=False,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        solve_rtol=1e-12,
        verbose=0,
    ):
        super().__init__(
            loss=loss,
            sketch=sketch,
            curvature=curvature,
            sketch_size=sketch_size,
            alpha0=alpha0,
            learning_rate=learning_rate,
            mu=mu,
            bound=bound,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            scale_features=scale_features,
            buffer_init=buffer_init,
            skip_zero_rows=skip_zero_rows,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
            warm_start=warm_start,
            solve_rtol=solve_rtol,
            verbose=verbose,
        )


class RFDSONRegressor(_Regressor):
    """:class:`skonline.linear_model.RFDSONRegressor` with the paper's defaults."""

    def __init__(
        self,
        loss="squared_error",
        *,
        epsilon=1.0,
        sketch="rfd",
        curvature="gradient",
        sketch_size=10,
        alpha0=0.0,
        learning_rate=1.0,
        mu="auto",
        bound=1.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        scale_features=False,
        center_target=False,
        buffer_init="zeros",
        skip_zero_rows=False,
        max_iter=1,
        shuffle=False,
        random_state=None,
        warm_start=False,
        solve_rtol=1e-12,
        verbose=0,
    ):
        super().__init__(
            loss=loss,
            epsilon=epsilon,
            sketch=sketch,
            curvature=curvature,
            sketch_size=sketch_size,
            alpha0=alpha0,
            learning_rate=learning_rate,
            mu=mu,
            bound=bound,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            scale_features=scale_features,
            center_target=center_target,
            buffer_init=buffer_init,
            skip_zero_rows=skip_zero_rows,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
            warm_start=warm_start,
            solve_rtol=solve_rtol,
            verbose=verbose,
        )
