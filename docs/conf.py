"""Sphinx configuration of the kernelkit documentation.

Build with ``python -m sphinx -W -b html docs docs/_build/html`` (the ``docs`` extra:
``pip install -e ".[docs]"``). The site works offline: no extension or theme option here
loads anything from the internet, and formulas are shown as LaTeX source (no MathJax).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from pathlib import Path
from typing import Any

os.environ["MPLBACKEND"] = "Agg"  # figures without a display, before matplotlib loads

from docutils import nodes

import kernelkit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_scripts"))

import api_lists  # noqa: E402
import glossary  # noqa: E402
import reproductions  # noqa: E402

# -- Project ------------------------------------------------------------------------------

project = "kernelkit"
author = "The kernelkit developers"
copyright = "The kernelkit developers"
version = release = kernelkit.__version__

# -- General ------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
]
templates_path = ["_templates"]
exclude_patterns = ["_build", "_screenshots", "Thumbs.db", ".DS_Store"]
default_role = "literal"  # `x` in a docstring is code, as ``x``

# -- API reference: autodoc, autosummary, numpydoc ----------------------------------------

autosummary_generate = True
autodoc_typehints = "none"  # the numpydoc Parameters sections give the types
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False  # the class template lists methods and properties
numpydoc_attributes_as_param_list = True  # no second object for a documented attribute

# docs/api/index.rst lists every public object: rewritten here, so a new one appears
api_lists.write(HERE / "api" / "index.rst")
# docs/glossary_table.rst, included by glossary.rst, from the table of ARCHITECTURE.md
glossary.write(HERE / "glossary_table.rst")
exclude_patterns.append("glossary_table.rst")  # an include, not a page of its own
# docs/reproductions/: one page per registered experiment, from its stored run
reproductions.write_pages()


def _properties(cls: type) -> list[str]:
    """The public properties kernelkit defines on ``cls`` or its bases: those autodoc
    documents, for the class template's table (a dataclass field or a hyperparameter
    descriptor is described in the class docstring instead)."""
    names = []
    for name in dir(cls):
        value = inspect.getattr_static(cls, name)
        if name.startswith("_") or not isinstance(value, (property, functools.cached_property)):
            continue
        getter = value.fget if isinstance(value, property) else value.func
        if getattr(getter, "__module__", "").startswith("kernelkit"):
            names.append(name)
    return names


autosummary_context = {
    "class_properties": {
        path: _properties(obj)
        for path, obj in api_lists.documented_names().items()
        if inspect.isclass(obj)
    }
}


def _skip_foreign_member(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any):
    """Leave out members inherited from outside kernelkit (scikit-learn's ``get_params``,
    ``set_output``, ...): a class page documents what kernelkit defines, own or inherited."""
    func = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    module = getattr(func, "__module__", None)
    if callable(func) and module is not None and not module.startswith("kernelkit"):
        return True
    return None


def _public_bases(app: Any, name: str, obj: Any, options: Any, bases: list[type]) -> None:
    """Show a class's public bases only (``Kernel``, ``RegressorMixin``), not kernelkit's
    private helpers (``GaussianPredictor`` of ``kernelkit.models._predictive``)."""
    bases[:] = [
        base
        for base in bases
        if base is not object
        and not base.__name__.startswith("_")
        and not any(part.startswith("_") for part in base.__module__.split("."))
    ]


# -- Gallery ------------------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # one sub-gallery per area (each folder has a README.rst header), in the API's order
    "subsection_order": [
        f"../examples/{area}"
        for area in (
            "kernels",
            "optimize",
            "features",
            "graphs",
            "learning_curves",
            "pgm",
            "structure",
            "geometry",
            "distributed",
        )
    ],
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "write_computation_times": False,  # its page loads jQuery and DataTables from CDNs
}

# -- HTML ---------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"kernelkit {version}"
html_static_path = ["_static"]
html_css_files = ["kernelkit.css"]
# a favicon of our own: without one the browser asks the server for /favicon.ico (a 404)
html_favicon = "_static/favicon.svg"
# the light/dark mode a first visit gets ("" by default: the theme logs a console error)
html_context = {"default_mode": "auto"}
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
}
html_math_renderer = "plain_latex"

# -- Formulas without MathJax -------------------------------------------------------------


def _visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "code", "", CLASS="math notranslate"))
    self.body.append(self.encode(node.astext()) + "</code>")
    raise nodes.SkipNode


def _visit_math_block(self: Any, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    self.body.append("<pre>" + self.encode(node.astext()) + "</pre></div>\n")
    raise nodes.SkipNode


def setup(app: Any) -> None:
    app.add_html_math_renderer(
        "plain_latex",
        inline_renderers=(_visit_math, None),
        block_renderers=(_visit_math_block, None),
    )
    app.connect("autodoc-skip-member", _skip_foreign_member)
    app.connect("autodoc-process-bases", _public_bases)
