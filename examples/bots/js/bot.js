#!/usr/bin/env node
// A random foxgeese bot in Node.js, written straight against the wire protocol (PROTOCOL.md).
// It parses the position text and generates the legal moves itself (all three variants, fox jump
// chains included), then plays a random one. Needs the npm packages zeromq (v6) and @msgpack/msgpack.
//
//   FOXGEESE_ENDPOINT=ipc:///tmp/x FOXGEESE_TOKEN=secret node bot.js   (by hand, for a remote seat)
"use strict";

const zmq = require("zeromq");
const { encode, decode } = require("@msgpack/msgpack");

const VARIANTS = ["standard", "hare-and-hounds", "great-cross"];
const LETTERS = "abcdefghi";
const DIRECTIONS = [[0, 1], [1, 1], [1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1]];

// --- boards: points are column + 9 * row; a line is stored as "a:b" with a < b ---------------------

const id = (c, r) => c + 9 * r;

function makeBoard(isPoint, lines) {
  return { isPoint, lines };
}

function addLine(lines, a, b) {
  lines.add(a < b ? `${a}:${b}` : `${b}:${a}`);
}

function gridBoard(size, low, high, diagonals) {
  const isPoint = (c, r) => c >= 0 && r >= 0 && c < size && r < size && ((c >= low && c <= high) || (r >= low && r <= high));
  const lines = new Set();
  for (let c = 0; c < size; c++) {
    for (let r = 0; r < size; r++) {
      if (!isPoint(c, r)) continue;
      if (isPoint(c + 1, r)) addLine(lines, id(c, r), id(c + 1, r));
      if (isPoint(c, r + 1)) addLine(lines, id(c, r), id(c, r + 1));
      if (isPoint(c + 1, r) && isPoint(c, r + 1) && isPoint(c + 1, r + 1)) {
        for (const kind of diagonals(c, r)) {
          if (kind === "up") addLine(lines, id(c, r), id(c + 1, r + 1));
          else addLine(lines, id(c, r + 1), id(c + 1, r));
        }
      }
    }
  }
  return makeBoard(isPoint, lines);
}

function hareBoard() {
  const isPoint = (c, r) => (c >= 0 && c < 3 && r >= 1 && r <= 3) || (c === 1 && (r === 0 || r === 4));
  const lines = new Set();
  for (let c = 0; c < 3; c++) {
    for (let r = 1; r <= 3; r++) {
      if (c < 2) addLine(lines, id(c, r), id(c + 1, r));
      if (r < 3) addLine(lines, id(c, r), id(c, r + 1));
    }
  }
  for (const [c, r] of [[0, 1], [2, 1], [0, 3], [2, 3]]) addLine(lines, id(c, r), id(1, 2));
  for (let c = 0; c < 3; c++) {
    addLine(lines, id(1, 0), id(c, 1));
    addLine(lines, id(1, 4), id(c, 3));
  }
  return makeBoard(isPoint, lines);
}

const BOARDS = {
  standard: gridBoard(7, 2, 4, () => ["up", "down"]),
  // One diagonal per unit square: the one through the corner whose c + r is odd.
  "great-cross": gridBoard(9, 3, 5, (c, r) => ((c + r) % 2 === 1 ? ["up"] : ["down"])),
  "hare-and-hounds": hareBoard(),
};

// The point one line-step from p in direction d, or -1.
function step(board, p, d) {
  const c = (p % 9) + d[0];
  const r = Math.floor(p / 9) + d[1];
  if (c < 0 || r < 0 || c > 8 || r > 8 || !board.isPoint(c, r)) return -1;
  const q = id(c, r);
  return board.lines.has(p < q ? `${p}:${q}` : `${q}:${p}`) ? q : -1;
}

// --- positions and moves ---------------------------------------------------------------------------

const parsePoint = (text) => id(LETTERS.indexOf(text[0]), Number(text.slice(1)) - 1);
const pointName = (p) => LETTERS[p % 9] + String(Math.floor(p / 9) + 1);

// "VARIANT OPTIONS TURN PREDATOR PREY QUIET STALL PLY"
function parsePosition(text) {
  const tokens = text.trim().split(/\s+/);
  if (tokens.length !== 8) throw new Error(`position text needs 8 tokens: ${text}`);
  const options = {};
  if (tokens[1] !== "-") {
    for (const item of tokens[1].split(",")) {
      const [key, value] = item.split("=");
      options[key] = value;
    }
  }
  return {
    variant: tokens[0],
    sideways: options.sideways === "1" || options.sideways === "true",
    predatorToMove: tokens[2] === "fox" || tokens[2] === "hare",
    predator: parsePoint(tokens[3]),
    prey: new Set(tokens[4] === "-" ? [] : tokens[4].split(",").map(parsePoint)),
  };
}

function legalMoves(pos) {
  const board = BOARDS[pos.variant];
  const moves = [];
  if (pos.predatorToMove) {
    for (const d of DIRECTIONS) {
      const q = step(board, pos.predator, d);
      if (q >= 0 && !pos.prey.has(q)) moves.push(`${pointName(pos.predator)}-${pointName(q)}`);
    }
    if (pos.variant !== "hare-and-hounds") addJumps(board, pos.predator, new Set(pos.prey), [pos.predator], moves);
  } else {
    const sideways = pos.variant !== "standard" || pos.sideways;
    for (const p of pos.prey) {
      for (const d of DIRECTIONS) {
        if (d[1] < 0 || (d[1] === 0 && !sideways)) continue;
        const q = step(board, p, d);
        if (q >= 0 && q !== pos.predator && !pos.prey.has(q)) moves.push(`${pointName(p)}-${pointName(q)}`);
      }
    }
  }
  return moves;
}

// Every non-empty jump chain from `at`; points the fox left or passed are empty.
function addJumps(board, at, geese, path, moves) {
  for (const d of DIRECTIONS) {
    const over = step(board, at, d);
    if (over < 0 || !geese.has(over)) continue;
    const land = step(board, over, d);
    if (land < 0 || geese.has(land)) continue;
    geese.delete(over);
    const chain = path.concat([land]);
    moves.push(chain.map(pointName).join("x"));
    addJumps(board, land, geese, chain, moves);
    geese.add(over);
  }
}

// --- the protocol loop -----------------------------------------------------------------------------

// A launched bot reads its token from the inherited descriptor FOXGEESE_TOKEN_FD names (a sealed
// memory file: read it from position 0, which no other process can disturb, then close it); a bot
// started by hand for a remote seat takes FOXGEESE_TOKEN.
function readToken() {
  const fd = process.env.FOXGEESE_TOKEN_FD;
  if (!fd) return process.env.FOXGEESE_TOKEN || "";
  const fs = require("fs");
  const buffer = Buffer.alloc(256);
  const length = fs.readSync(Number(fd), buffer, 0, buffer.length, 0); // a positioned read (pread)
  fs.closeSync(Number(fd));
  return buffer.toString("ascii", 0, length).trim();
}

// A small seeded generator (mulberry32): the same game seed gives the same moves.
function seededRandom(seed) {
  let state = (seed % 4294967296) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const endpoint = process.env.FOXGEESE_ENDPOINT;
  if (!endpoint) {
    console.error("bot.js: set FOXGEESE_ENDPOINT (and FOXGEESE_TOKEN) to the referee's address");
    process.exit(2);
  }
  const sock = new zmq.Dealer({ linger: 0 });
  sock.connect(endpoint);
  const send = (type, fields) => sock.send(Buffer.from(encode({ v: 2, type, ...fields })));

  // Whoever launched us is gone (we were re-parented): so is the referee.
  let random = Math.random;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 1000).unref();

  await send("hello", {
    token: readToken(),
    name: "js-example",
    author: "foxgeese examples",
    version: "1.0",
    variants: VARIANTS,
  });
  for await (const [frame] of sock) {
    const message = decode(frame);
    switch (message.type) {
      case "quit":
        sock.close();
        return;
      case "refused":
        console.error(`bot.js: refused: ${message.reason}`);
        process.exit(1);
        break;
      case "new_game":
        if (typeof message.seed === "number") random = seededRandom(message.seed); // seed from the game
        await send("ready", { game_id: message.game_id });
        break;
      case "turn": {
        const moves = legalMoves(parsePosition(message.position));
        const ids = { game_id: message.game_id, request_id: message.request_id };
        if (moves.length === 0) await send("resign", ids);
        else await send("move", { ...ids, move: moves[Math.floor(random() * moves.length)] });
        break;
      }
      case "ping":
        await send("pong", { id: message.id });
        break;
      default:
        break; // welcome, game_over, error: nothing to answer
    }
  }
}

// `node bot.js --moves`: for each position text on stdin, print its legal moves on one line.
function listMoves() {
  const lines = require("readline").createInterface({ input: process.stdin });
  lines.on("line", (line) => process.stdout.write(legalMoves(parsePosition(line)).join(" ") + "\n"));
}

if (require.main === module && process.argv[2] === "--moves") {
  listMoves();
} else if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { legalMoves, parsePosition };
