"""Settings files read as the settings they set: which files, each format, feature flags,
secrets masked in what is stored, a file that does not parse, a big file, and a folder
whose Python code reads a setting through its environment variable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli_runs import as_json

from loregraph.ingest.code.masking import stored_settings
from loregraph.ingest.code.settings_files import MASK, MAX_KEYS, is_settings, parse_settings
from loregraph.ingest.code.stage import read_code
from loregraph.ingest.read.readers import read_path

TOML = """# the shop's settings
debug = false

[database]
url = "postgres://shop:hunter22@db:5432/shop"
pool = 5
password = "s3cr3t-pw"

[features]
new_checkout = true
beta-search = false

[api]
key = "abc123"
token_ttl = 3600
"""
YAML = """database:
  url: postgres://localhost/shop
  password: hunter2
private_key: |
  -----BEGIN KEY-----
  MIIEowIBAAKCAQEA
  -----END KEY-----
servers: [a, b]
---
database:
  url: ignored
extra: 1
"""


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("settings.toml", True),
        ("config.local.yaml", True),
        ("application-dev.yml", True),
        ("application.properties", True),
        ("appsettings.Production.json", True),
        ("service/config/database.yaml", True),
        ("settings/flags.ini", True),
        (".env", False),  # dotenv: secrets, never read
        ("config/.env.json", False),
        ("tests/fixtures/data.json", False),  # data, not settings
        ("tsconfig.json", False),
        ("config/urls.py", False),
        ("configure.yaml", False),
    ],
)
def test_settings_files_are_told_by_name_or_folder(path: str, expected: bool) -> None:
    assert is_settings(path) is expected


def _read(path: str, text: str) -> dict[str, tuple[object, int]]:
    return {s.name: (s.value, s.line) for s in parse_settings(path, text)}


def test_each_format_gives_each_setting_by_its_dotted_path_and_line() -> None:
    assert _read("settings.toml", TOML) == {
        "debug": (False, 2),
        "database.url": ("postgres://shop:hunter22@db:5432/shop", 5),
        "database.pool": (5, 6),
        "database.password": ("s3cr3t-pw", 7),
        "features.new_checkout": (True, 10),
        "features.beta-search": (False, 11),
        "api.key": ("abc123", 14),
        "api.token_ttl": (3600, 15),
    }
    yaml_read = _read("config/app.yaml", YAML)  # the first document's url is kept
    assert yaml_read["database.url"] == ("postgres://localhost/shop", 2)
    assert yaml_read["servers"] == (["a", "b"], 8) and yaml_read["extra"] == (1, 12)
    json_text = '{\n  "Logging": {\n    "Level": "Warning"\n  },\n  "Enabled": true\n}\n'
    assert _read("appsettings.json", json_text) == {
        "Logging.Level": ("Warning", 3),
        "Enabled": (True, 5),
    }
    ini = "[DEFAULT]\nlevel = info\n[database]\nport = 5432\nreplica = true\n"
    assert _read("config.ini", ini) == {
        "level": ("info", 2),
        "database.port": (5432, 4),
        "database.replica": (True, 5),
    }
    properties = "# db\nspring.datasource.url=jdbc:h2:mem\nfeature.x: false\nname = a \\\n  b\n"
    assert _read("application.properties", properties) == {
        "spring.datasource.url": ("jdbc:h2:mem", 2),
        "feature.x": (False, 3),
        "name": ("a b", 4),
    }


def test_a_boolean_is_a_feature_flag_and_a_secret_is_not_described() -> None:
    described = {s.name: s.describe("settings.toml") for s in parse_settings("settings.toml", TOML)}
    assert described["features.new_checkout"] == "a feature flag in settings.toml, on by default"
    assert described["debug"] == "a feature flag in settings.toml, off by default"
    assert described["database.pool"] == "a setting in settings.toml: an integer, 5"
    assert described["database.password"] == (
        "a setting in settings.toml: a secret string (its value is not stored)"
    )
    assert described["database.url"] == (
        f'a setting in settings.toml: a string, "postgres://shop:{MASK}@db:5432/shop"'
    )
    assert described["api.token_ttl"] == "a setting in settings.toml: an integer, 3600"


@pytest.mark.parametrize(
    ("path", "text", "secrets"),
    [
        ("settings.toml", TOML, ["hunter22", "s3cr3t-pw", "abc123"]),
        ("config/app.yaml", YAML, ["hunter2", "BEGIN", "MIIEowIBAAKCAQEA"]),
        ("appsettings.json", '{"Auth": {"ClientSecret": "a\\"b-c", "On": true}}', ['a\\"b-c']),
        ("config.ini", "[db]\npassword = pw1234\nport = 1\n", ["pw1234"]),
        ("application.properties", "db.password = topsecret\n", ["topsecret"]),
    ],
)
def test_secrets_are_masked_in_the_stored_text_which_still_parses(
    path: str, text: str, secrets: list[str]
) -> None:
    stored = stored_settings(path, text)
    assert all(secret not in stored for secret in secrets) and MASK in stored
    assert [s.name for s in parse_settings(path, stored)] == [
        s.name for s in parse_settings(path, text)
    ]
    if path == "settings.toml":  # numbers and flags under secret-looking keys stay
        assert "token_ttl = 3600" in stored and 'password = "<secret>"' in stored


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("config.yaml", "a: [\n password: hunter2"),
        ("settings.json", '{"password": "hunter2",'),
        ("settings.toml", 'password = "hunter2\n'),
        ("config.ini", "password = hunter2\n"),  # no section
    ],
)
def test_a_settings_file_that_does_not_parse_sets_nothing_and_is_not_stored(
    path: str, text: str
) -> None:
    assert parse_settings(path, text) == []
    stored = stored_settings(path, text)
    assert "hunter2" not in stored and "does not parse" in stored
    assert parse_settings(path, stored) == []


def test_a_big_settings_file_reads_at_most_its_cap(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    keys = {f"group{i // 10}": {f"key_name{j}": j for j in range(10)} for i in range(0, 3000, 10)}
    raw = json.dumps(keys, indent=2)
    (tmp_path / "config" / "big.json").write_text(raw)
    (document,) = read_path(tmp_path)
    chunks, extracted = read_code(document)
    assert len(extracted.relations) == MAX_KEYS and extracted.stats == {"settings": MAX_KEYS}
    assert len(chunks) <= len(raw) // 900 + 1  # chunked as code is: each at most 1,000 chars
    quoted = {r.target: r.evidence[0].sentence for r in extracted.relations}
    assert quoted["group7.key_name3"] == '"key_name3": 3,'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "shop").mkdir(parents=True)
    (root / "config").mkdir()
    (root / "tests" / "fixtures").mkdir(parents=True)
    (root / "config" / "settings.toml").write_text(TOML)
    (root / "config" / "broken.yaml").write_text("password: [hunter3\n")
    (root / ".env").write_text("DATABASE_URL=postgres://shop:dotenv-secret@db/shop\n")
    (root / "tests" / "fixtures" / "data.json").write_text('{"database": {"url": "x"}}')
    (root / "shop" / "__init__.py").write_text('"""The shop."""\n')
    (root / "shop" / "db.py").write_text(
        "import os\n\n\ndef connect():\n    return os.environ['DATABASE_URL']\n"
    )
    (root / "shop" / "app.py").write_text("from shop.db import connect\n\nconnect()\n")
    return root


def _stored_bytes(directory: Path) -> bytes:
    return b"".join(p.read_bytes() for p in directory.rglob("*") if p.is_file())


def test_a_folder_s_settings_are_config_linked_to_the_code_that_reads_them(
    repo: Path, tmp_path: Path
) -> None:
    db = tmp_path / "store" / "settings.db"
    db.parent.mkdir()
    report = as_json(db, "ingest", str(repo))
    assert report["failed"] == [] and report["ingested"] == 5  # 3 .py, 2 settings
    config = {e["name"]: e for e in as_json(db, "entities", "--type", "Config")}
    assert config["features.new_checkout"]["description"] == (
        "a feature flag in config/settings.toml, on by default"
    )
    assert "hunter22" not in config["database.url"]["description"]
    assert "url" not in config and "database.url" in config  # fixtures are not settings
    defined = as_json(db, "relations", "config/settings.toml", "--type", "DEFINES", "--out")
    evidence = {r["other"]: r["evidence"] for r in defined["relations"]}
    assert evidence["database.password"] == ['password = "<secret>"']
    assert evidence["features.new_checkout"] == ["new_checkout = true"]
    assert len(evidence) == 8
    hit = as_json(db, "impact", "database.url")  # what reads the setting
    assert {(d["name"], d["distance"], d["via"]) for d in hit["dependents"]} >= {
        ("shop/db.py", 1, "CONFIGURED_BY"),
        ("shop/app.py", 2, "IMPORTS"),
    }
    env = as_json(db, "impact", "DATABASE_URL")
    assert ("shop/db.py", 1) in {(d["name"], d["distance"]) for d in env["dependents"]}
    broken = as_json(db, "relations", "config/broken.yaml", "--out")
    assert broken["relations"] == []
    stored = _stored_bytes(db.parent)
    assert b"s3cr3t-pw" not in stored and b"hunter22" not in stored and b"hunter3" not in stored
    assert b"dotenv-secret" not in stored  # .env is never read
    assert b"token_ttl = 3600" in stored  # (the stored text is in those files)


def test_code_read_again_finds_a_setting_added_later(repo: Path, tmp_path: Path) -> None:
    (repo / "config" / "settings.toml").write_text("[features]\nnew_checkout = true\n")
    db = tmp_path / "again.db"
    as_json(db, "ingest", str(repo))
    (repo / "config" / "settings.toml").write_text(TOML)  # shop/db.py itself is unchanged
    as_json(db, "ingest", str(repo))
    hit = as_json(db, "impact", "database.url")
    assert ("shop/db.py", 1) in {(d["name"], d["distance"]) for d in hit["dependents"]}
