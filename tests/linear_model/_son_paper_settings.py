"""RFD-SON with the paper's settings as the defaults (Luo et al. 2019, §6.2).

The estimators' defaults are chosen for users (log loss, a scaled ridge, target
centring, Hessian curvature for the regressor); the tests of the paper's
algorithm run it as printed: squared loss on ``±1`` labels, gradient curvature,
``alpha0 = 0`` (RFD0), ``bound = 1``, raw features and targets, and the
regressor's predictions unclipped, and the paper's link for the probabilities
(no calibration map).
"""

import inspect

from skonline.linear_model import RFDSONClassifier as _Classifier
from skonline.linear_model import RFDSONRegressor as _Regressor

PAPER = {
    "sketch": "rfd",
    "loss": "squared_error",
    "curvature": "gradient",
    "alpha0": 0.0,
    "bound": 1.0,
    "scale_features": False,
    "calibration": None,
}


def _with_defaults(base, defaults):
    """A subclass of ``base`` whose ``__init__`` has other defaults (and the same parameters).

    scikit-learn reads the parameters from the ``__init__`` signature, so
    ``clone``, ``get_params`` and pickling work as for ``base``.
    """
    parent = inspect.signature(base.__init__)
    signature = parent.replace(
        parameters=[
            p.replace(default=defaults[p.name]) if p.name in defaults else p
            for p in parent.parameters.values()
        ]
    )

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        base.__init__(*bound.args, **bound.kwargs)

    __init__.__signature__ = signature
    return type(
        base.__name__,
        (base,),
        {
            "__init__": __init__,
            "__module__": __name__,
            "__qualname__": base.__name__,
            "__doc__": f":class:`skonline.linear_model.{base.__name__}` with the paper's defaults.",
        },
    )


RFDSONClassifier = _with_defaults(_Classifier, PAPER)
RFDSONRegressor = _with_defaults(
    _Regressor, {**PAPER, "center_target": False, "clip_predictions": False}
)
