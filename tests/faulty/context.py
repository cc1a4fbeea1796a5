"""What a fault knows of the server it wraps: the credentials of its target profile.

A fault that swaps credentials (an unknown key served as a valid one, a token reaching another
owner's project) takes them from here. The foreign owner's token is not in the profile; it is read
from the throwaway database, the way a test would look it up.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class Context:
    pat: str
    foreign_pat: str
    dev_key: str
    prod_key: str
    all_key: str
    legacy_key: str
    foreign_key: str

    @classmethod
    def load(cls, profile_path: Path, db_path: Path) -> Context:
        credentials = yaml.safe_load(profile_path.read_text(encoding="utf-8"))["credentials"]
        scoped = {tuple(k["environments"]): k["key"] for k in credentials["sdk_keys"]}
        with sqlite3.connect(db_path) as conn:
            row = conn.execute("SELECT token FROM access_tokens WHERE label = 'foreign'").fetchone()
        return cls(
            pat=credentials["pat"],
            foreign_pat=row[0],
            dev_key=scoped[("development",)],
            prod_key=scoped[("production",)],
            all_key=scoped[("development", "production")],
            legacy_key=credentials["legacy_sdk_key"]["key"],
            foreign_key=credentials["foreign_sdk_key"],
        )

    @property
    def sdk_keys(self) -> tuple[str, ...]:
        return (self.dev_key, self.prod_key, self.all_key, self.legacy_key, self.foreign_key)
