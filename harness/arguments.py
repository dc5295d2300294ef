"""Checking a tool call's arguments against the tool's ``input_schema``, before the tool runs.

The API does not promise that a model's tool call matches the schema it was offered: an argument
may be missing, misspelt, of the wrong type, out of its ``enum``, or a megabyte long. ``checked``
turns each of those into a ``ToolError`` that says exactly what was wrong, so the model can try
again -- a small JSON-schema checker, for the few shapes the workbook's tools use.

Left out: nested objects and arrays (no tool here takes one), ``minimum``/``pattern`` and the rest
of JSON Schema.
"""

from __future__ import annotations

from harness.sandbox import ToolError

JSON_TYPES = {"string": str, "object": dict, "array": list, "boolean": bool, "integer": int}
MAX_ARGUMENT_CHARS = 20_000  # a longer string argument is refused, not searched or recorded


def checked(name: str, schema: dict, given) -> dict:
    """The arguments of a call, checked against the tool's ``input_schema``, or a ToolError.

    Checks: an object; no unknown fields; every required field; each field's type and ``enum``;
    no NUL bytes and no string over MAX_ARGUMENT_CHARS. A missing optional field gets its
    ``default``. A tool without an ``input_schema`` (a typed API tool such as ``memory``) is only
    checked for being an object.
    Example: checked("read_file", schema, {"path": 3})
    -> ToolError("bad arguments for read_file: 'path' must be a string, not int.")
    """
    given = {} if given is None else given
    if not isinstance(given, dict):
        raise ToolError(
            f"bad arguments for {name}: the input must be an object of named fields, "
            f"not {type(given).__name__}."
        )
    shape = schema.get("input_schema")
    if shape is None:
        return given
    fields = shape.get("properties", {})
    required = shape.get("required", [])
    unknown = [key for key in given if key not in fields]
    if unknown:
        raise ToolError(
            f"bad arguments for {name}: unknown field {str(unknown[0])[:80]!r}; "
            f"it takes {', '.join(fields) or 'no fields'}."
        )
    # a required field is never filled in from its default: the model must say what it means
    missing = [key for key in required if key not in given]
    if missing:
        raise ToolError(f"bad arguments for {name}: {missing[0]!r} is required.")
    arguments = {
        key: spec["default"]
        for key, spec in fields.items()
        if "default" in spec and key not in given and key not in required
    }
    for key, value in given.items():
        spec = fields[key]
        wanted = JSON_TYPES.get(spec.get("type"))
        # the trap: Python counts True as an int; JSON does not
        if wanted and (
            not isinstance(value, wanted) or (wanted is int and isinstance(value, bool))
        ):
            article = "an" if spec["type"] == "integer" else "a"
            raise ToolError(
                f"bad arguments for {name}: {key!r} must be {article} {spec['type']}, "
                f"not {type(value).__name__}."
            )
        if isinstance(value, str) and "\x00" in value:
            raise ToolError(f"bad arguments for {name}: {key!r} holds a NUL byte.")
        if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
            raise ToolError(
                f"bad arguments for {name}: {key!r} is {len(value):,} characters long "
                f"(at most {MAX_ARGUMENT_CHARS:,})."
            )
        if "enum" in spec and value not in spec["enum"]:
            choices = ", ".join(map(str, spec["enum"]))
            raise ToolError(
                f"bad arguments for {name}: {key!r} must be one of {choices}, "
                f"not {str(value)[:80]!r}."
            )
        arguments[key] = value
    return arguments
