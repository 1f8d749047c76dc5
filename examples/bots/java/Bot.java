// A random foxgeese bot in Java, written from PROTOCOL.md and docs/rules.md alone.
//
// It uses Debian's JeroMQ 0.3.6 (a ZeroMQ written in Java, ZMTP 2.0: no real ipc://, so it takes
// the referee's loopback TCP endpoint, the default for a cmd: bot) and msgpack-java, parses the
// position text and generates the legal moves itself (all three variants, fox jump chains
// included), then plays a random one, seeded by each game's seed.
//
//   javac -cp /usr/share/java/jeromq.jar:/usr/share/java/msgpack-core.jar -d build Bot.java
//   java -cp build:/usr/share/java/jeromq.jar:/usr/share/java/msgpack-core.jar Bot
//   ... Bot --moves < positions.txt      (the legal moves of each position text, one line each)

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;
import org.zeromq.ZMQ;

public final class Bot {
    static final String[] VARIANTS = {"standard", "hare-and-hounds", "great-cross"};
    static final int GRID = 9, CELLS = GRID * GRID;
    static final int[][] DIRS = {{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}};
    static final String LETTERS = "abcdefghi";

    // ---- boards: which cells are points, and which lines leave each point in each direction ----

    static final class Board {
        final boolean[] point = new boolean[CELLS];
        final boolean[][] line = new boolean[CELLS][8];

        void join(int c1, int r1, int c2, int r2) {
            line[cell(c1, r1)][direction(c2 - c1, r2 - r1)] = true;
            line[cell(c2, r2)][direction(c1 - c2, r1 - r2)] = true;
        }

        // The cell one line-step from p in direction d, or -1.
        int step(int p, int d) {
            return line[p][d] ? cell(p % GRID + DIRS[d][0], p / GRID + DIRS[d][1]) : -1;
        }
    }

    static int cell(int column, int row) { return column + GRID * row; }

    static int direction(int dc, int dr) {
        for (int d = 0; d < 8; d++) if (DIRS[d][0] == dc && DIRS[d][1] == dr) return d;
        throw new IllegalArgumentException("not a neighbour");
    }

    static boolean onCross(int c, int r, int size, int low, int high) {
        return c >= 0 && r >= 0 && c < size && r < size && ((c >= low && c <= high) || (r >= low && r <= high));
    }

    // Columns and rows are counted from 0 here (a = 0, row 1 = 0); the great cross draws the
    // diagonal through the corners whose column + row is odd (the same parity counting from 1).
    static Board cross(int size, int low, int high, boolean great) {
        Board b = new Board();
        for (int c = 0; c < size; c++) {
            for (int r = 0; r < size; r++) {
                if (!onCross(c, r, size, low, high)) continue;
                b.point[cell(c, r)] = true;
                if (onCross(c + 1, r, size, low, high)) b.join(c, r, c + 1, r);
                if (onCross(c, r + 1, size, low, high)) b.join(c, r, c, r + 1);
                if (onCross(c + 1, r, size, low, high) && onCross(c, r + 1, size, low, high)
                        && onCross(c + 1, r + 1, size, low, high)) {
                    if (!great || (c + r) % 2 == 1) b.join(c, r, c + 1, r + 1);
                    if (!great || (c + r) % 2 == 0) b.join(c, r + 1, c + 1, r);
                }
            }
        }
        return b;
    }

    static Board hare() {
        Board b = new Board();
        for (int c = 0; c < 3; c++) {
            for (int r = 1; r <= 3; r++) {
                b.point[cell(c, r)] = true;
                if (c < 2) b.join(c, r, c + 1, r);
                if (r < 3) b.join(c, r, c, r + 1);
            }
            b.join(1, 0, c, 1);
            b.join(1, 4, c, 3);
        }
        b.point[cell(1, 0)] = b.point[cell(1, 4)] = true;
        b.join(0, 1, 1, 2);
        b.join(1, 2, 2, 3);
        b.join(2, 1, 1, 2);
        b.join(1, 2, 0, 3);
        return b;
    }

    static final Board[] BOARDS = {cross(7, 2, 4, false), hare(), cross(9, 3, 5, true)};

    // ---- positions and moves -------------------------------------------------------------------

    // "VARIANT OPTIONS TURN PREDATOR PREY QUIET STALL PLY" (PROTOCOL.md, position text).
    static final class Position {
        int variant = -1, predator = -1;
        boolean sideways, predatorToMove;
        final boolean[] prey = new boolean[CELLS];

        static Position parse(String text) {
            String[] tokens = text.trim().split(" ");
            if (tokens.length < 5) return null;
            Position p = new Position();
            for (int v = 0; v < VARIANTS.length; v++) if (VARIANTS[v].equals(tokens[0])) p.variant = v;
            p.sideways = tokens[1].contains("sideways=1");
            p.predatorToMove = tokens[2].equals("fox") || tokens[2].equals("hare");
            p.predator = point(tokens[3]);
            if (p.variant < 0 || p.predator < 0) return null;
            if (!tokens[4].equals("-")) {
                for (String name : tokens[4].split(",")) {
                    int q = point(name);
                    if (q < 0) return null;
                    p.prey[q] = true;
                }
            }
            return p;
        }
    }

    static int point(String name) {
        if (name.length() != 2) return -1;
        int column = LETTERS.indexOf(name.charAt(0)), row = name.charAt(1) - '1';
        return column < 0 || row < 0 || row >= GRID ? -1 : cell(column, row);
    }

    static String name(int p) { return "" + LETTERS.charAt(p % GRID) + (char) ('1' + p / GRID); }

    // Every non-empty jump chain from `at`; points the fox left, and geese it jumped, are empty.
    static void jumps(Board b, int at, boolean[] geese, String chain, List<String> out) {
        for (int d = 0; d < 8; d++) {
            int over = b.step(at, d);
            if (over < 0 || !geese[over]) continue;
            int land = b.step(over, d);
            if (land < 0 || geese[land]) continue;
            String longer = chain + "x" + name(land);
            out.add(longer);
            geese[over] = false;
            jumps(b, land, geese, longer, out);
            geese[over] = true;
        }
    }

    static List<String> legalMoves(Position p) {
        Board b = BOARDS[p.variant];
        List<String> moves = new ArrayList<>();
        if (p.predatorToMove) {
            for (int d = 0; d < 8; d++) {
                int q = b.step(p.predator, d);
                if (q >= 0 && !p.prey[q]) moves.add(name(p.predator) + "-" + name(q));
            }
            if (p.variant != 1) jumps(b, p.predator, p.prey.clone(), name(p.predator), moves);
            return moves;
        }
        boolean sideways = p.variant != 0 || p.sideways; // hounds and great-cross geese always may
        for (int from = 0; from < CELLS; from++) {
            if (!p.prey[from]) continue;
            for (int d = 0; d < 8; d++) {
                if (DIRS[d][1] < 0 || (DIRS[d][1] == 0 && !sideways)) continue;
                int q = b.step(from, d);
                if (q >= 0 && q != p.predator && !p.prey[q]) moves.add(name(from) + "-" + name(q));
            }
        }
        return moves;
    }

    // ---- the wire: one msgpack map with string keys per ZeroMQ frame -------------------------

    static byte[] pack(String type, Object... fields) throws IOException {
        MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
        packer.packMapHeader(2 + fields.length / 2);
        packer.packString("v").packInt(2);
        packer.packString("type").packString(type);
        for (int i = 0; i < fields.length; i += 2) {
            packer.packString((String) fields[i]);
            Object value = fields[i + 1];
            if (value instanceof String) {
                packer.packString((String) value);
            } else if (value instanceof Long) {
                packer.packLong((Long) value);
            } else if (value instanceof String[]) {
                String[] items = (String[]) value;
                packer.packArrayHeader(items.length);
                for (String item : items) packer.packString(item);
            } else {
                throw new IllegalArgumentException("cannot pack " + value);
            }
        }
        packer.close();
        return packer.toByteArray();
    }

    // A message as a map of its top-level fields; null if it is not a msgpack map.
    static Map<String, Value> unpack(byte[] data) {
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(data)) {
            Value value = unpacker.unpackValue();
            if (!value.isMapValue()) return null;
            Map<String, Value> fields = new HashMap<>();
            for (Map.Entry<Value, Value> entry : value.asMapValue().map().entrySet()) {
                if (entry.getKey().isStringValue()) fields.put(entry.getKey().asStringValue().asString(), entry.getValue());
            }
            return fields;
        } catch (IOException | RuntimeException error) {
            return null;
        }
    }

    static String text(Map<String, Value> message, String key) {
        Value value = message.get(key);
        return value != null && value.isStringValue() ? value.asStringValue().asString() : "";
    }

    static long number(Map<String, Value> message, String key) {
        Value value = message.get(key);
        return value != null && value.isIntegerValue() ? value.asIntegerValue().toLong() : 0L;
    }

    // A launched bot's token is behind the inherited descriptor FOXGEESE_TOKEN_FD names. Java
    // cannot pread a descriptor given by number, nor close it, so it opens /proc/self/fd/N: a
    // fresh open of the same memory file, read from its start whoever else read it. A bot started
    // by hand for a remote seat takes FOXGEESE_TOKEN.
    static String token() throws IOException {
        String fd = System.getenv("FOXGEESE_TOKEN_FD");
        if (fd == null || fd.isEmpty()) {
            String token = System.getenv("FOXGEESE_TOKEN");
            return token == null ? "" : token;
        }
        return new String(Files.readAllBytes(Paths.get("/proc/self/fd/" + fd)), StandardCharsets.US_ASCII).strip();
    }

    static int listMoves() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            Position p = Position.parse(line);
            out.append(p == null ? "" : String.join(" ", legalMoves(p))).append('\n');
        }
        System.out.print(out);
        System.out.flush();
        return 0;
    }

    static int play() throws IOException {
        String endpoint = System.getenv("FOXGEESE_ENDPOINT");
        if (endpoint == null || endpoint.isEmpty()) {
            System.err.println("bot: set FOXGEESE_ENDPOINT (and FOXGEESE_TOKEN) to the referee's address");
            return 2;
        }
        String token = token();
        ZMQ.Context context = ZMQ.context(1);
        ZMQ.Socket socket = context.socket(ZMQ.DEALER); // never REQ, and no identity of its own
        socket.setLinger(0);
        socket.connect(endpoint);
        socket.send(pack("hello", "token", token, "name", "java-example", "author", "foxgeese examples",
                "version", "1.0", "variants", VARIANTS), 0);
        Random random = new Random();
        int status = 0;
        while (true) {
            byte[] data = socket.recv(0);
            if (data == null) continue;
            Map<String, Value> message = unpack(data);
            if (message == null) continue;
            String type = text(message, "type");
            if (type.equals("quit")) break;
            if (type.equals("refused")) {
                System.err.println("bot: refused: " + text(message, "reason"));
                status = 1;
                break;
            }
            switch (type) {
                case "ping":
                    socket.send(pack("pong", "id", number(message, "id")), 0);
                    break;
                case "new_game":
                    random = new Random(number(message, "seed")); // the same seed replays the same game
                    socket.send(pack("ready", "game_id", text(message, "game_id")), 0);
                    break;
                case "turn": {
                    Position p = Position.parse(text(message, "position"));
                    List<String> moves = p == null ? List.of() : legalMoves(p);
                    String gameId = text(message, "game_id");
                    long requestId = number(message, "request_id");
                    if (moves.isEmpty()) {
                        socket.send(pack("resign", "game_id", gameId, "request_id", requestId), 0);
                    } else {
                        String move = moves.get(random.nextInt(moves.size()));
                        socket.send(pack("move", "game_id", gameId, "request_id", requestId, "move", move), 0);
                    }
                    break;
                }
                default: // game_over, welcome, error and types of later versions: nothing to answer
                    break;
            }
        }
        socket.close();
        context.term();
        return status;
    }

    public static void main(String[] args) throws IOException {
        System.exit(args.length > 0 && args[0].equals("--moves") ? listMoves() : play());
    }
}
