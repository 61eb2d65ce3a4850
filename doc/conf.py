"""Sphinx configuration of the skonline documentation.

Build from the repository root with::

    python -m sphinx -b html doc doc/_build/html

Everything is local: no intersphinx inventories are fetched, MathJax ships
with the build and the theme, scikit-learn's ``pydata-sphinx-theme``, bundles
its fonts and icons.
"""

import re
import sys
from pathlib import Path

# Document the source tree next to this folder, installed or not.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import skonline

# -- Project information -----------------------------------------------------
project = "skonline"
author = "the skonline developers"
copyright = "the skonline developers, BSD-3-Clause"
version = skonline.__version__
release = skonline.__version__

# -- General configuration ---------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax ships with the build (no CDN): the math renders offline.
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"
default_role = "literal"

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"

# Methods and properties are documented by autodoc (":members:" in the class
# template); numpydoc's own member tables would list them a second time.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Render "Attributes" as attribute entries: as a parameter list, numpydoc
# replaces the description of a property by its docstring's first line.
numpydoc_attributes_as_param_list = False

# -- Sphinx-Gallery ----------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "doc_module": ("skonline",),
    "reference_url": {"skonline": None},
    "backreferences_dir": "generated/backreferences",
    "image_scrapers": ("matplotlib",),
    "remove_config_comments": True,
    # the computation-times pages load jQuery and DataTables from CDNs: none offline
    "write_computation_times": False,
}

# -- Docstring clean-up ------------------------------------------------------
# numpydoc emits a parameter's type as reStructuredText, where a word ending in
# "_" (as in "shape (n_components_, n_features)") is a hyperlink reference.
_SHAPE = re.compile(r"shape \([^)]*\)")
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?=[,)\s])")
# Docstrings inherited from scikit-learn link to labels of scikit-learn's own
# documentation; with no intersphinx (the build is offline) they become text.
_REF_WITH_TITLE = re.compile(r":ref:`([^`<]*?)\s*<[^`>]+>`")
_REF = re.compile(r":ref:`([^`]+)`")
# scikit-learn's glossary terms (e.g. in the generated set_*_request methods).
_TERM = re.compile(r":term:`([^`<]*?)(?:\s*<[^`>]+>)?`")


def _escape_shape(match):
    return _TRAILING_UNDERSCORE.sub(r"\\_", match.group(0))


def _clean_docstring(app, what, name, obj, options, lines):
    from_sklearn = getattr(obj, "__module__", "").startswith("sklearn.")
    for i, line in enumerate(lines):
        line = _TERM.sub(r"\1", _SHAPE.sub(_escape_shape, line))
        if from_sklearn:
            line = _REF.sub(r"\1", _REF_WITH_TITLE.sub(r"\1", line))
        lines[i] = line


def setup(app):
    app.connect("autodoc-process-docstring", _clean_docstring)


# -- HTML output -------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skonline {release}"
html_static_path = ["_static"]
html_css_files = ["skonline.css"]
html_theme_options = {
    # a full-width article: the scoreboard tables and the code blocks fit the page
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"index": [], "api": []}
