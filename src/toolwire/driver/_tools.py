"""Backend tools for ``toolwire.run(..., tools=[...])``: what a tool is, and what it returns.

A tool is a plain Python function (sync or async) or a :class:`Tool`. A function's JSON
schema comes from its signature's type hints, validated and described by pydantic, and its
docstring: the first paragraph describes the tool, an ``Args:`` section (or ``:param x:``
lines) describes the parameters. The model's arguments are validated against the same
pydantic model before the function is called.

What a tool returns becomes the result's content (:func:`tool_content`): a ``str`` is text;
AG-UI parts (``TextPart``, ``ImagePart``...; alone or in a list, strings in the list as text)
are kept in order and fitted to the vendor like any other result; anything else (a dict, a
list, a dataclass, a pydantic model, a number, ``None``) is compact JSON text.
:func:`media_part` and :func:`file_part` make media parts from bytes or a file.
"""

from __future__ import annotations

import base64
import inspect
import mimetypes
import re
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ag_ui.core import (
    AudioPart,
    ContentPart,
    DataSource,
    DocumentPart,
    ImagePart,
    TextPart,
    VideoPart,
)
from ag_ui.core import Tool as AguiTool

from toolwire.errors import UnsupportedInput
from toolwire.protocol._compact_json import compact_finite
from toolwire.protocol.parts import MediaPart
from toolwire.protocol.parts import media_part as _part_for

_PART_TYPES = (TextPart, ImagePart, AudioPart, VideoPart, DocumentPart)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")


class Tool:
    """A backend tool: ``name``, ``description``, the JSON schema of its arguments
    (``parameters``) and the ``function`` called with them as keyword arguments.

    Made directly, the arguments are passed as the model sent them (a JSON object);
    :meth:`from_function` builds the schema from a signature and validates them first.
    """

    def __init__(
        self,
        name: str,
        description: str,
        parameters: dict[str, Any] | None,
        function: Callable[..., Any],
    ) -> None:
        if not isinstance(name, str) or not _NAME.match(name):
            raise UnsupportedInput(
                f"toolwire.Tool: name {name!r} must be 1-64 letters, digits, '_', '.' or '-', "
                "not starting with a digit"
            )
        if not callable(function):
            raise UnsupportedInput(f"toolwire.Tool {name!r}: function must be callable")
        if parameters is not None and not isinstance(parameters, dict):
            raise UnsupportedInput(f"toolwire.Tool {name!r}: parameters must be a JSON schema")
        self.name = name
        self.description = description or ""
        self.parameters: dict[str, Any] = parameters or {"type": "object", "properties": {}}
        self.function = function
        self._validator: Any = None  # a pydantic model of the arguments (from_function)
        self._positional: tuple[str, ...] = ()

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
    ) -> Tool:
        """The tool a function makes: its name, its docstring, its parameters' hints."""
        import pydantic

        tool_name = str(name or getattr(function, "__name__", ""))
        summary, param_docs = _read_docstring(inspect.getdoc(function) or "")
        try:
            signature = inspect.signature(function)
            hints = typing.get_type_hints(function, include_extras=True)
        except (TypeError, ValueError, NameError) as exc:
            raise UnsupportedInput(
                f"toolwire tool {tool_name!r}: cannot read its signature: {exc}"
            ) from None
        fields: dict[str, Any] = {}
        positional: list[str] = []
        for p in signature.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise UnsupportedInput(
                    f"toolwire tool {tool_name!r}: *{p.name} cannot be described to a model; "
                    "name each parameter"
                )
            if p.kind is p.POSITIONAL_ONLY:
                positional.append(p.name)
            default = ... if p.default is p.empty else p.default
            doc = param_docs.get(p.name)
            value = pydantic.Field(default, description=doc) if doc else default
            fields[p.name] = (hints.get(p.name, Any), value)
        try:
            model = pydantic.create_model(f"{tool_name}_arguments", **fields)
            schema = model.model_json_schema()
        except (
            pydantic.PydanticUserError,
            pydantic.PydanticSchemaGenerationError,
            TypeError,
        ) as exc:
            raise UnsupportedInput(
                f"toolwire tool {tool_name!r}: its parameters have no JSON schema: {exc}"
            ) from None
        tool = cls(tool_name, description or summary, _untitled(schema), function)
        tool._validator = model
        tool._positional = tuple(positional)
        return tool

    def as_agui(self) -> AguiTool:
        """The tool as the model is told of it (an ``ag_ui.core.Tool``)."""
        return AguiTool(name=self.name, description=self.description, parameters=self.parameters)

    def call_arguments(self, arguments: Any) -> tuple[list[Any], dict[str, Any]]:
        """The positional and keyword arguments for ``function`` (validated when built
        from a function); a ``ValueError`` says what is wrong with the model's arguments."""
        if not isinstance(arguments, dict):
            raise ValueError(f"the arguments are not a JSON object: {arguments!r}"[:300])
        if self._validator is None:
            return [], dict(arguments)
        import pydantic

        try:
            checked = self._validator.model_validate(arguments)
        except pydantic.ValidationError as exc:
            raise ValueError(_validation_text(exc)) from None
        values = {k: getattr(checked, k) for k in type(checked).model_fields}
        args = [values.pop(k) for k in self._positional]
        return args, values

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"


def _untitled(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without pydantic's ``title`` keys (the model reads the name and the
    descriptions; a title per property is noise some vendors refuse)."""
    out = {k: v for k, v in schema.items() if k != "title"}
    props = out.get("properties")
    if isinstance(props, dict):
        out["properties"] = {
            k: {kk: vv for kk, vv in v.items() if kk != "title"} if isinstance(v, dict) else v
            for k, v in props.items()
        }
    return out


def _validation_text(exc: Any) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(x) for x in err.get("loc", ())) or "arguments"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid arguments: " + "; ".join(parts)


_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$", re.I)
_OTHER_SECTION = re.compile(r"^\s*(Returns?|Raises|Yields|Examples?|Notes?)\s*:\s*$", re.I)
_ARG_LINE = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


def _read_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph, and each parameter's description (Google ``Args:`` or Sphinx
    ``:param x:``)."""
    summary_lines: list[str] = []
    params: dict[str, str] = {}
    in_args = False
    current: str | None = None
    summary_done = False
    args_indent = _indent_of_args(doc)
    for line in doc.splitlines():
        if _SECTION.match(line):
            in_args, current, summary_done = True, None, True
            continue
        if _OTHER_SECTION.match(line):
            in_args, current, summary_done = False, None, True
            continue
        sphinx = _SPHINX.match(line)
        if sphinx:
            current, summary_done = sphinx.group(1), True
            params[current] = sphinx.group(2).strip()
            continue
        if in_args:
            m = _ARG_LINE.match(line)
            indent = len(line) - len(line.lstrip())
            if m and (current is None or indent <= args_indent):
                current = m.group(1)
                params[current] = m.group(2).strip()
            elif current is not None and line.strip():
                params[current] = f"{params[current]} {line.strip()}".strip()
            continue
        if current is not None and line.strip() and line.startswith((" ", "\t")):
            params[current] = f"{params[current]} {line.strip()}".strip()
            continue
        current = None
        if not summary_done:
            if line.strip():
                summary_lines.append(line.strip())
            elif summary_lines:
                summary_done = True
    return " ".join(summary_lines), params


def _indent_of_args(doc: str) -> int:
    """The indent of the first entry under the ``Args:`` heading."""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if _SECTION.match(line):
            for follow in lines[i + 1 :]:
                if follow.strip():
                    return len(follow) - len(follow.lstrip())
    return 0


def as_tools(tools: Sequence[Any], where: str) -> dict[str, Tool]:
    """``tools=`` as :class:`Tool` objects by name (a function becomes one)."""
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
        raise UnsupportedInput(f"{where}: tools must be a list of functions or toolwire.Tool")
    out: dict[str, Tool] = {}
    for item in tools:
        if isinstance(item, Tool):
            tool = item
        elif callable(item):
            tool = Tool.from_function(item)
        else:
            raise UnsupportedInput(
                f"{where}: a tool must be a function or a toolwire.Tool, not {type(item).__name__}"
            )
        if tool.name in out:
            raise UnsupportedInput(f"{where}: two backend tools are named {tool.name!r}")
        out[tool.name] = tool
    return out


# -------------------------------------------------------------------- results as content


def tool_content(value: Any) -> str | list[ContentPart]:
    """What a tool returned, as a result's content (see the module docstring).

    Raises ``TypeError``/``ValueError`` for what has no such form (bytes: make a part with
    :func:`media_part`; a float that is NaN or infinite)."""
    if isinstance(value, str):
        return value
    if isinstance(value, _PART_TYPES):
        return [value]
    if (
        isinstance(value, (list, tuple))
        and value
        and any(isinstance(v, _PART_TYPES) for v in value)
    ):
        parts: list[ContentPart] = []
        for item in value:
            if isinstance(item, str):
                parts.append(TextPart(text=item))
            elif isinstance(item, _PART_TYPES):
                parts.append(item)
            else:
                raise TypeError(
                    f"a list of parts holds a {type(item).__name__}; "
                    "parts and strings only (or return JSON data alone)"
                )
        return parts
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError("a tool returned bytes; return toolwire.media_part(data, mime_type)")
    from pydantic_core import to_jsonable_python

    return compact_finite(to_jsonable_python(value))


def media_part(data: bytes, mime_type: str) -> MediaPart:
    """An image, audio, video or document part (by ``mime_type``) holding ``data``."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise UnsupportedInput("toolwire.media_part: data must be bytes")
    if not isinstance(mime_type, str) or "/" not in mime_type:
        raise UnsupportedInput(f"toolwire.media_part: {mime_type!r} is not a MIME type")
    value = base64.b64encode(bytes(data)).decode("ascii")
    return _part_for(DataSource(type="data", value=value, mime_type=mime_type))


def file_part(path: str | Path, mime_type: str | None = None) -> MediaPart:
    """A media part holding a file's bytes; the MIME type from its name unless given."""
    p = Path(path)
    mime = mime_type or mimetypes.guess_type(p.name)[0]
    if mime is None:
        raise UnsupportedInput(
            f"toolwire.file_part: cannot tell the MIME type of {p.name}; pass it"
        )
    return media_part(p.read_bytes(), mime)


__all__ = ["Tool", "as_tools", "file_part", "media_part", "tool_content"]
