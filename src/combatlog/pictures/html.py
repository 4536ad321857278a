"""HTML from Jinja2 templates (``combatlog/templates``) with autoescape: the report and the live page.

Every ``{{ value }}`` is first made printable (``svg.clean``: control characters shown as escapes,
characters XML cannot hold replaced) and then HTML-escaped by Jinja2, since a hostile player writes the
names, notes and reasons; its right-to-left stretches are then isolated (``combatlog.text.isolated``: FSI ... PDI, which
HTML honours as ``<bdi>``, and which, unlike an element, is also right in an attribute or the ``<title>``), so
a name in Hebrew cannot reorder the words and numbers around it. Only what we drew ourselves (the SVG pictures, already escaped by
``pictures.svg``) and our own CSS and script go in as ``Markup``. jinja2 is imported here, on first use:
only ``report`` and ``serve`` draw HTML, and CLI start-up must not pay for it. The compiled templates are
kept between runs as Python keeps bytecode (``compiled_folder``).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from combatlog.pictures.svg import clean, isolated

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def _printable(value: Any) -> Any:
    if type(value) is str and value.isprintable():  # the common case, in C: no control, bidi or surrogate
        return isolated(value)
    if type(value) is int or hasattr(value, "__html__"):  # a number, or our own Markup
        return value
    return "" if value is None else isolated(clean(value))


def compiled_folder() -> Path | None:
    """Where the templates' compiled code is kept between runs, as Python keeps a module's: in
    ``__pycache__`` beside them, or under ``PYTHONPYCACHEPREFIX``; None where Python writes no bytecode
    (``PYTHONDONTWRITEBYTECODE``). Compiling them is ~50 ms of CPU, a sixth of a small report's run."""
    if sys.dont_write_bytecode:
        return None
    if sys.pycache_prefix:
        return Path(sys.pycache_prefix) / TEMPLATES.relative_to(TEMPLATES.anchor)
    return TEMPLATES / "__pycache__"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    import jinja2

    class Compiled(jinja2.FileSystemBytecodeCache):
        """Jinja2's cache (the template's source checksum is in each entry, so an edited template is
        compiled again), where a cache that cannot be read or written is no cache: a read-only install
        compiles every run, as it did before."""

        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:  # a damaged entry (a full disk): compiled again and rewritten
                bucket.reset()

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            try:
                Path(self.directory).mkdir(parents=True, exist_ok=True)
                super().dump_bytecode(bucket)
            except OSError:
                pass

    folder = compiled_folder()
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True, undefined=jinja2.StrictUndefined,
        finalize=_printable, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        bytecode_cache=Compiled(str(folder)) if folder is not None else None,
    )


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def trusted(text: str) -> Any:
    """Our own markup (an SVG we drew, our CSS, our script): written as is."""
    from markupsafe import Markup

    return Markup(text)
