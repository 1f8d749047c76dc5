"""engine/svg.py: well-formed, deterministic SVG with every point, line and piece where it belongs."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from foxgeese.engine import VARIANT_IDS, Game, Move, Position, get_variant, parse_point
from foxgeese.engine.svg import MARGIN, STEP, board_parts, board_svg, overlay_svg

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def group(root: ET.Element, name: str) -> ET.Element:
    return root.find(f".//svg:g[@class='{name}']", NS)


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_every_point_line_and_piece_of_every_variant_is_drawn(variant_id: str) -> None:
    variant = get_variant(variant_id)
    position = variant.start_position()
    root = parse(board_svg(position))
    assert len(group(root, "lines")) == len(variant.board.lines)
    assert len(group(root, "points")) == len(variant.board.points)
    hits = group(root, "hits")
    assert sorted(hit.get("data-point") for hit in hits) == sorted(_names(variant.board.points))
    pieces = root.findall(".//svg:use", NS)
    predator_href = f"#fg-{variant.predator_name}"
    prey = [p.get("data-point") for p in pieces if "piece" in p.get("class") and p.get("href") != predator_href]
    assert sorted(prey) == sorted(_names(position.prey_points))
    (predator,) = [p for p in pieces if p.get("href") == f"#fg-{variant.predator_name}"]
    assert predator.get("data-point") == _names([position.predator])[0]
    labels = [text.text for text in group(root, "coords")]
    assert labels[: variant.board.columns] == list("abcdefghi"[: variant.board.columns])
    assert labels[variant.board.columns:] == [str(row) for row in range(1, variant.board.rows + 1)]


def _names(points) -> list[str]:
    from foxgeese.engine import point_name

    return [point_name(p) for p in points]


def test_points_sit_on_the_grid_row_one_at_the_bottom_and_flipped_turns_it_round() -> None:
    position = get_variant("standard").start_position()
    height = 2 * MARGIN + 6 * STEP
    fox = parse(board_svg(position)).find(".//svg:use[@data-point='d4']", NS)
    assert (int(fox.get("x")), int(fox.get("y"))) == (MARGIN + 3 * STEP, MARGIN + 3 * STEP)
    goose = parse(board_svg(position)).find(".//svg:use[@data-point='c1']", NS)
    assert (int(goose.get("x")), int(goose.get("y"))) == (MARGIN + 2 * STEP, height - MARGIN)
    flipped = parse(board_svg(position, flipped=True)).find(".//svg:use[@data-point='c1']", NS)
    assert (int(flipped.get("x")), int(flipped.get("y"))) == (MARGIN + 4 * STEP, MARGIN)


def test_a_capture_chain_is_drawn_as_its_path_with_every_jumped_goose_crossed_out() -> None:
    # Fox c5, geese on d5 and e4 (and others): c5xe5xe3 jumps d5 then e4.
    before = Position.from_text("standard geese=13,sideways=0 fox c5 c1,d1,e1,c2,d2,e2,a3,b3,f3,g3,e4,d5 0 0 8")
    move = Move.parse("c5xe5xe3")
    assert move in before.legal_moves()
    after = before.play(move)
    root = parse(board_svg(after, last_move=move, highlights=[parse_point("a3")]))
    last = group(root, "last-move")
    assert last.get("data-move") == "c5xe5xe3"
    line = last.find("svg:polyline", NS).get("points").split()
    assert len(line) == 3 and line[0] == f"{MARGIN + 2 * STEP},{MARGIN + 2 * STEP}"
    crossed = [g.get("data-point") for g in root.findall(".//svg:g[@class='captured']", NS)]
    assert crossed == ["d5", "e4"]
    assert [c.get("data-point") for c in root.findall(".//svg:circle[@class='highlight']", NS)] == ["a3"]
    assert root.find(".//svg:use[@data-point='e3']", NS).get("href") == "#fg-fox"


def test_output_is_deterministic_and_the_layers_add_up_to_the_board() -> None:
    game = Game(get_variant("great-cross"))
    game.push(game.legal_moves()[0])
    first = board_svg(game.position, last_move=game.moves[-1], size=300)
    assert first == board_svg(game.position, last_move=game.moves[-1], size=300)
    before, after = board_parts(game.position.variant, size=300)
    assert first == before + overlay_svg(game.position, last_move=game.moves[-1]) + after
    assert 'width="300" height="300"' in first
    assert "<text" not in board_svg(game.position, coordinates=False).split('class="overlay"')[0].split("</defs>")[1]


def test_the_last_moves_origin_is_a_dot_not_the_dashed_ring_of_a_movable_piece() -> None:
    """Pages draw "this piece can move" as a dashed ring (web/static/app.css); an empty origin
    drawn the same way looked clickable."""
    game = Game(get_variant("standard"))
    game.push(game.parse_move("d4-d5"))
    root = parse(board_svg(game.position, last_move=game.moves[-1]))
    (origin,) = group(root, "last-move").findall("svg:circle", NS)
    assert origin.get("class") == "last-origin" and origin.get("stroke-dasharray") is None
    assert origin.get("fill") not in (None, "none")
    assert (origin.get("cx"), origin.get("cy")) == (str(MARGIN + 3 * STEP), str(MARGIN + 3 * STEP))


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_row_labels_stay_clear_of_a_piece_and_its_ring_in_column_a(variant_id: str) -> None:
    """Hounds on a2 and a4 (and geese on a3) touched the row numbers beside them."""
    from foxgeese.engine.svg import HIT_RADIUS

    root = parse(board_svg(get_variant(variant_id).start_position()))
    rows = [text for text in group(root, "coords") if text.text.isdigit()]
    assert all(len(text.text) == 1 for text in rows)
    label_right = max(int(text.get("x")) for text in rows) + 16 * 0.6 / 2  # half a digit of the 16 px font
    ring_left = MARGIN - HIT_RADIUS - 1.5  # the dashed ring a page draws round a piece on column a (stroke 3)
    assert label_right + 4 <= ring_left
