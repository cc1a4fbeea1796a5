"""The target profile: how one implementation fills the spec's gaps, loaded, validated, typed.

``profile.schema.json`` owns every key: its type, its default (every default is the reference
server's choice, ``docs/reference-choices.md``) and its meaning (``description``). Nothing in this
package repeats a default: ``defaults.DEFAULTS`` is read from the schema, a profile is merged over
it (``loading``), and ``building.build`` types the merged mapping from the dataclasses'
annotations. Every error names the key and the line. ``${ENV_VAR}`` values are read at load
time; a missing variable is a usage error.

To add a key or a section (say ``paging:``), in three places and with one default:

1. ``profile.schema.json``: the section under ``properties``; each optional key carries its
   ``default`` and ``description`` on the property itself (not inside ``$defs``).
2. Here: a frozen dataclass whose fields are the section's keys, typed (``int``, ``float``,
   ``str``, ``bool``, ``X | None``, ``tuple[X, ...]``, ``dict[str, X]`` or another such
   dataclass) and without defaults, in the module of its concept (``access``, ``messages``,
   ``limits``, ``experiments``), and a field of that type on ``Profile`` (``model``). ``build``
   needs no change. A key that is optional without a default is typed ``X | None``: absent, it
   is None. A section that sets a stage (``STAGE_SECTIONS``) gets its dataclass in the stage
   instead, read with ``stage_section``.
3. ``docs/target-profile.md``: the key in the example, with its default as the value
   (``tests/conformance/profile/test_profile_docs.py`` holds the schema, these dataclasses and
   the page equal).
"""

# Re-exported by name (``X as X``), not through ``__all__``: a string "load" would spell a stage.
from conformance.profile.loading import load as load
from conformance.profile.loading import parse as parse
from conformance.profile.model import Profile as Profile
