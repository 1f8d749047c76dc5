"""The shipped conformance vectors agree with the engine and the solved tables, and a wrong entry is named."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from foxgeese.research.conformance import FORMAT, VARIANTS, check, generate

VECTORS = Path(__file__).resolve().parent.parent / "research" / "conformance" / "vectors.json"


@pytest.fixture(scope="module")
def vectors():
    return json.loads(VECTORS.read_text(encoding="utf-8"))


def test_the_vectors_cover_every_variant_and_section(vectors):
    assert vectors["format"] == FORMAT and set(vectors["about"]) >= {"perft", "positions", "values"}
    variants = {(e["variant"], json.dumps(e["options"], sort_keys=True)) for e in vectors["perft"]}
    assert len(variants) == len(VARIANTS) == 8  # every row's cases: standard's new board among them
    assert ("standard", json.dumps({"diagonals": "alternating", "geese": 13, "sideways": False})) in variants
    assert any(m.count("x") > 1 for e in vectors["positions"] for m in e["legal_moves"])  # capture chains
    assert any(e["outcome"] for e in vectors["positions"])
    assert {e["variant"] for e in vectors["values"]} == {"standard", "hare-and-hounds"}
    assert any(e["options"].get("diagonals") == "alternating" for e in vectors["values"])  # its 4-geese tables


def test_the_engine_agrees_with_every_vector(vectors, four_geese_tables):
    assert check(vectors, four_geese_tables) == []


def test_a_wrong_vector_is_named(vectors, four_geese_tables):
    broken = copy.deepcopy(vectors)
    broken["perft"][0]["nodes"] += 1
    broken["positions"][1]["legal_moves"] = broken["positions"][1]["legal_moves"][1:]
    broken["values"][0]["plies"] += 2
    wrong = check(broken, four_geese_tables)
    assert len(wrong) == 3 and wrong[0].startswith("perft") and wrong[1].startswith("position")


def test_the_shipped_file_is_what_the_generator_writes(vectors):
    assert generate() == vectors  # regenerate: python -m foxgeese.research.conformance generate PATH
