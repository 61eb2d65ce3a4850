"""Entry point of ``python -m skonline``: the tour, ``--quick``, ``--help``, ``--version``."""

from __future__ import annotations

import argparse

from . import __version__


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m skonline",
        description=(
            "A tour of skonline on scikit-learn's bundled data: every family streamed "
            "with partial_fit next to its scikit-learn peer or a batch baseline, with "
            "throughput and quality (about 5 seconds)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"skonline {__version__}")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="time each estimator once instead of best of three, on fewer curve points "
        "(about 2 seconds; the quality columns of the other families are unchanged)",
    )
    args = parser.parse_args(argv)
    from ._tour import main as tour  # scikit-learn is loaded only for the tour

    tour(quick=args.quick)


if __name__ == "__main__":
    main()
