"""Entry point of ``python -m skonline``."""

from ._tour import main

if __name__ == "__main__":
    main()
