/* A random foxgeese bot in C, written straight against the wire protocol (PROTOCOL.md).
 *
 * It parses the position text and generates the legal moves itself (all three variants, fox jump
 * chains included), then plays a random one. Needs libzmq and msgpack-c (Debian: libzmq3-dev,
 * libmsgpack-dev).
 *
 *   FOXGEESE_ENDPOINT=ipc:///tmp/x FOXGEESE_TOKEN=secret ./bot   (by hand, for a remote seat)
 */
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define GRID 9
#define CELLS (GRID * GRID)
#define MAX_MOVES 4096
#define MOVE_TEXT 64
#define MAX_MESSAGE 65536

static const char LETTERS[] = "abcdefghi";
static const int DIRS[8][2] = {{0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}};

enum variant { STANDARD, HARE_AND_HOUNDS, GREAT_CROSS, VARIANT_COUNT };
static const char *VARIANT_IDS[VARIANT_COUNT] = {"standard", "hare-and-hounds", "great-cross"};

/* A board: which cells are points, and for each point and direction whether a line leaves that way. */
struct board {
    int point[CELLS];
    int line[CELLS][8];
};
static struct board BOARDS[VARIANT_COUNT];

static int cell(int c, int r) { return c + GRID * r; }

static int dir_index(int dc, int dr) {
    for (int i = 0; i < 8; i++)
        if (DIRS[i][0] == dc && DIRS[i][1] == dr) return i;
    return -1;
}

static void add_line(struct board *b, int c1, int r1, int c2, int r2) {
    b->line[cell(c1, r1)][dir_index(c2 - c1, r2 - r1)] = 1;
    b->line[cell(c2, r2)][dir_index(c1 - c2, r1 - r2)] = 1;
}

static int cross_point(int c, int r, int size, int low, int high) {
    return c >= 0 && r >= 0 && c < size && r < size && ((c >= low && c <= high) || (r >= low && r <= high));
}

/* Cross boards; `great` selects one diagonal per unit square (through the corner with c + r odd). */
static void build_cross(struct board *b, int size, int low, int high, int great) {
    memset(b, 0, sizeof *b);
    for (int c = 0; c < size; c++)
        for (int r = 0; r < size; r++) {
            if (!cross_point(c, r, size, low, high)) continue;
            b->point[cell(c, r)] = 1;
            if (cross_point(c + 1, r, size, low, high)) add_line(b, c, r, c + 1, r);
            if (cross_point(c, r + 1, size, low, high)) add_line(b, c, r, c, r + 1);
            if (cross_point(c + 1, r, size, low, high) && cross_point(c, r + 1, size, low, high) &&
                cross_point(c + 1, r + 1, size, low, high)) {
                int up = !great || (c + r) % 2 == 1, down = !great || (c + r) % 2 == 0;
                if (up) add_line(b, c, r, c + 1, r + 1);
                if (down) add_line(b, c, r + 1, c + 1, r);
            }
        }
}

static void build_hare(struct board *b) {
    memset(b, 0, sizeof *b);
    for (int c = 0; c < 3; c++)
        for (int r = 1; r <= 3; r++) {
            b->point[cell(c, r)] = 1;
            if (c < 2) add_line(b, c, r, c + 1, r);
            if (r < 3) add_line(b, c, r, c, r + 1);
        }
    b->point[cell(1, 0)] = b->point[cell(1, 4)] = 1;
    add_line(b, 0, 1, 1, 2);
    add_line(b, 1, 2, 2, 3);
    add_line(b, 2, 1, 1, 2);
    add_line(b, 1, 2, 0, 3);
    for (int c = 0; c < 3; c++) {
        add_line(b, 1, 0, c, 1);
        add_line(b, 1, 4, c, 3);
    }
}

/* The cell one line-step from p in direction d, or -1. */
static int step(const struct board *b, int p, int d) {
    if (!b->line[p][d]) return -1;
    return cell(p % GRID + DIRS[d][0], p / GRID + DIRS[d][1]);
}

/* --- positions and moves ------------------------------------------------------------------------ */

struct position {
    int variant, sideways, predator_to_move, predator;
    int prey[CELLS];
};

struct move_list {
    int count;
    char text[MAX_MOVES][MOVE_TEXT];
};

static int parse_point(const char *s) {
    const char *letter = strchr(LETTERS, s[0]);
    int row = atoi(s + 1);
    if (s[0] == '\0' || letter == NULL || row < 1 || row > GRID) return -1;
    return cell((int)(letter - LETTERS), row - 1);
}

/* Rows are 1..9, so a point name is always a letter and one digit. */
static void point_name(int p, char out[4]) {
    out[0] = LETTERS[p % GRID];
    out[1] = (char)('1' + p / GRID);
    out[2] = '\0';
}

/* "VARIANT OPTIONS TURN PREDATOR PREY QUIET STALL PLY"; returns 0 when the text is understood. */
static int parse_position(const char *text, struct position *pos) {
    char variant[32], options[64], turn[16], predator[8], prey[256];
    if (sscanf(text, "%31s %63s %15s %7s %255s", variant, options, turn, predator, prey) != 5) return -1;
    memset(pos, 0, sizeof *pos);
    pos->variant = -1;
    for (int v = 0; v < VARIANT_COUNT; v++)
        if (strcmp(variant, VARIANT_IDS[v]) == 0) pos->variant = v;
    pos->sideways = strstr(options, "sideways=1") != NULL;
    pos->predator_to_move = strcmp(turn, "fox") == 0 || strcmp(turn, "hare") == 0;
    pos->predator = parse_point(predator);
    if (pos->variant < 0 || pos->predator < 0) return -1;
    if (strcmp(prey, "-") != 0) {
        for (char *item = strtok(prey, ","); item != NULL; item = strtok(NULL, ",")) {
            int p = parse_point(item);
            if (p < 0) return -1;
            pos->prey[p] = 1;
        }
    }
    return 0;
}

static void add_move(struct move_list *moves, const char *text) {
    if (moves->count < MAX_MOVES) snprintf(moves->text[moves->count++], MOVE_TEXT, "%s", text);
}

/* Every non-empty jump chain from `at`; `text` holds the chain so far. Points the fox left are empty. */
static void add_jumps(const struct board *b, int at, int *geese, char *text, struct move_list *moves) {
    size_t length = strlen(text);
    for (int d = 0; d < 8; d++) {
        int over = step(b, at, d);
        if (over < 0 || !geese[over]) continue;
        int land = step(b, over, d);
        if (land < 0 || geese[land] || length + 4 >= MOVE_TEXT) continue;
        char name[4];
        point_name(land, name);
        sprintf(text + length, "x%s", name);
        add_move(moves, text);
        geese[over] = 0;
        add_jumps(b, land, geese, text, moves);
        geese[over] = 1;
        text[length] = '\0';
    }
}

static void legal_moves(struct position *pos, struct move_list *moves) {
    const struct board *b = &BOARDS[pos->variant];
    char from[4], to[4], text[MOVE_TEXT];
    moves->count = 0;
    if (pos->predator_to_move) {
        point_name(pos->predator, from);
        for (int d = 0; d < 8; d++) {
            int q = step(b, pos->predator, d);
            if (q < 0 || pos->prey[q]) continue;
            point_name(q, to);
            snprintf(text, sizeof text, "%s-%s", from, to);
            add_move(moves, text);
        }
        if (pos->variant != HARE_AND_HOUNDS) {
            snprintf(text, sizeof text, "%s", from);
            add_jumps(b, pos->predator, pos->prey, text, moves);
        }
        return;
    }
    int sideways = pos->variant != STANDARD || pos->sideways;
    for (int p = 0; p < CELLS; p++) {
        if (!pos->prey[p]) continue;
        point_name(p, from);
        for (int d = 0; d < 8; d++) {
            if (DIRS[d][1] < 0 || (DIRS[d][1] == 0 && !sideways)) continue;
            int q = step(b, p, d);
            if (q < 0 || q == pos->predator || pos->prey[q]) continue;
            point_name(q, to);
            snprintf(text, sizeof text, "%s-%s", from, to);
            add_move(moves, text);
        }
    }
}

/* --- msgpack helpers ------------------------------------------------------------------------------ */

static const msgpack_object *field(const msgpack_object *map, const char *key) {
    if (map->type != MSGPACK_OBJECT_MAP) return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == strlen(key) &&
            memcmp(kv->key.via.str.ptr, key, kv->key.via.str.size) == 0)
            return &kv->val;
    }
    return NULL;
}

/* Copies a string field into out (empty when missing). */
static void string_field(const msgpack_object *map, const char *key, char *out, size_t size) {
    const msgpack_object *value = field(map, key);
    out[0] = '\0';
    if (value == NULL || value->type != MSGPACK_OBJECT_STR) return;
    size_t n = value->via.str.size < size - 1 ? value->via.str.size : size - 1;
    memcpy(out, value->via.str.ptr, n);
    out[n] = '\0';
}

static int64_t int_field(const msgpack_object *map, const char *key) {
    const msgpack_object *value = field(map, key);
    if (value == NULL) return 0;
    if (value->type == MSGPACK_OBJECT_POSITIVE_INTEGER) return (int64_t)value->via.u64;
    if (value->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) return value->via.i64;
    return 0;
}

static void pack_str(msgpack_packer *pk, const char *s) {
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

/* Starts a message map of `pairs` key/value pairs besides v and type. */
/* A launched bot reads its token from the inherited descriptor FOXGEESE_TOKEN_FD names (a sealed
 * memory file: pread from offset 0, which no other process can disturb, then close it); a bot
 * started by hand for a remote seat takes FOXGEESE_TOKEN. */
static const char *read_token(char *text, size_t size) {
    const char *fd_text = getenv("FOXGEESE_TOKEN_FD");
    if (fd_text == NULL || fd_text[0] == '\0') {
        const char *token = getenv("FOXGEESE_TOKEN");
        return token ? token : "";
    }
    int fd = atoi(fd_text);
    size_t used = 0;
    ssize_t got;
    while (used + 1 < size && (got = pread(fd, text + used, size - 1 - used, (off_t)used)) > 0) used += (size_t)got;
    close(fd);
    while (used > 0 && (text[used - 1] == '\n' || text[used - 1] == '\r')) used--;
    text[used] = '\0';
    return text;
}

static void pack_header(msgpack_packer *pk, const char *type, uint32_t pairs) {
    msgpack_pack_map(pk, pairs + 2);
    pack_str(pk, "v");
    msgpack_pack_int(pk, 2);
    pack_str(pk, "type");
    pack_str(pk, type);
}

static void send_buffer(void *socket, msgpack_sbuffer *buffer) {
    zmq_send(socket, buffer->data, buffer->size, 0);
    msgpack_sbuffer_clear(buffer);
}

/* --- the protocol loop ---------------------------------------------------------------------------- */

/* `bot --moves`: for each position text on stdin, print its legal moves on one line (for tests). */
static int list_moves(void) {
    static struct move_list moves;
    char line[512];
    while (fgets(line, sizeof line, stdin) != NULL) {
        struct position pos;
        moves.count = 0;
        if (parse_position(line, &pos) == 0) legal_moves(&pos, &moves);
        for (int i = 0; i < moves.count; i++) printf(i ? " %s" : "%s", moves.text[i]);
        printf("\n");
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    build_cross(&BOARDS[STANDARD], 7, 2, 4, 0);
    build_cross(&BOARDS[GREAT_CROSS], 9, 3, 5, 1);
    build_hare(&BOARDS[HARE_AND_HOUNDS]);
    if (argc > 1 && strcmp(argv[1], "--moves") == 0) return list_moves();

    const char *endpoint = getenv("FOXGEESE_ENDPOINT");
    char token_text[256];
    const char *token = read_token(token_text, sizeof token_text);
    if (endpoint == NULL || endpoint[0] == '\0') {
        fprintf(stderr, "bot: set FOXGEESE_ENDPOINT (and FOXGEESE_TOKEN) to the referee's address\n");
        return 2;
    }
    srand((unsigned)time(NULL) ^ (unsigned)getpid());

    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(socket, endpoint) != 0) {
        fprintf(stderr, "bot: cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        return 1;
    }

    msgpack_sbuffer buffer;
    msgpack_sbuffer_init(&buffer);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &buffer, msgpack_sbuffer_write);

    pack_header(&pk, "hello", 5);
    pack_str(&pk, "token");
    pack_str(&pk, token);
    pack_str(&pk, "name");
    pack_str(&pk, "c-example");
    pack_str(&pk, "author");
    pack_str(&pk, "foxgeese examples");
    pack_str(&pk, "version");
    pack_str(&pk, "1.0");
    pack_str(&pk, "variants");
    msgpack_pack_array(&pk, VARIANT_COUNT);
    for (int v = 0; v < VARIANT_COUNT; v++) pack_str(&pk, VARIANT_IDS[v]);
    send_buffer(socket, &buffer);

    static struct move_list moves;
    static char data[MAX_MESSAGE];
    pid_t parent = getppid();
    int status = 0;
    for (;;) {
        zmq_pollitem_t item = {socket, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 1000) <= 0) {
            if (getppid() != parent) break; /* whoever launched us is gone: so is the referee */
            continue;
        }
        int size = zmq_recv(socket, data, sizeof data, 0);
        if (size < 0 || size > (int)sizeof data) continue;

        msgpack_unpacked unpacked;
        msgpack_unpacked_init(&unpacked);
        if (msgpack_unpack_next(&unpacked, data, (size_t)size, NULL) != MSGPACK_UNPACK_SUCCESS) {
            msgpack_unpacked_destroy(&unpacked);
            continue;
        }
        const msgpack_object *message = &unpacked.data;
        char type[32], game_id[256], text[512];
        string_field(message, "type", type, sizeof type);
        string_field(message, "game_id", game_id, sizeof game_id);
        int done = 0;

        if (strcmp(type, "quit") == 0) {
            done = 1;
        } else if (strcmp(type, "refused") == 0) {
            string_field(message, "reason", text, sizeof text);
            fprintf(stderr, "bot: refused: %s\n", text);
            status = done = 1;
        } else if (strcmp(type, "new_game") == 0) {
            /* Seed from the game's seed, so the same seed replays the same game. */
            if (field(message, "seed") != NULL) srand((unsigned)(int_field(message, "seed") & 0xffffffffu));
            pack_header(&pk, "ready", 1);
            pack_str(&pk, "game_id");
            pack_str(&pk, game_id);
            send_buffer(socket, &buffer);
        } else if (strcmp(type, "turn") == 0) {
            struct position pos;
            string_field(message, "position", text, sizeof text);
            moves.count = 0;
            if (parse_position(text, &pos) == 0) legal_moves(&pos, &moves);
            pack_header(&pk, moves.count ? "move" : "resign", moves.count ? 3 : 2);
            pack_str(&pk, "game_id");
            pack_str(&pk, game_id);
            pack_str(&pk, "request_id");
            msgpack_pack_int64(&pk, int_field(message, "request_id"));
            if (moves.count) {
                pack_str(&pk, "move");
                pack_str(&pk, moves.text[rand() % moves.count]);
            }
            send_buffer(socket, &buffer);
        } else if (strcmp(type, "ping") == 0) {
            pack_header(&pk, "pong", 1);
            pack_str(&pk, "id");
            msgpack_pack_int64(&pk, int_field(message, "id"));
            send_buffer(socket, &buffer);
        }
        msgpack_unpacked_destroy(&unpacked);
        if (done) break;
    }
    msgpack_sbuffer_destroy(&buffer);
    zmq_close(socket);
    zmq_ctx_term(context);
    return status;
}
