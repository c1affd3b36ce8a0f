/* onnx_wire.c - validates protobuf wire format before protobuf-c parses it.
 *
 * protobuf-c unpacks submessages recursively with no depth limit, so a file with thousands of
 * nested GraphProto/NodeProto/AttributeProto levels would exhaust the stack.  This scanner walks
 * the bytes iteratively with an explicit stack, guided by the generated message descriptors (so
 * it knows which fields hold submessages without a second schema), and rejects malformed
 * varints, lengths past the enclosing message, group/unknown wire types and nesting deeper than
 * ONNX_MAX_NESTING. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "onnx_model.h"

enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_FIXED32 = 5 };

/* Reads a varint at *pos (< end).  Returns false when it runs past `end` or exceeds 10 bytes /
 * 64 bits. */
static bool read_varint(const uint8_t *buf, size_t end, size_t *pos, uint64_t *out) {
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (*pos >= end) return false;
        uint8_t b = buf[(*pos)++];
        if (i == 9 && b > 1) return false; /* the 10th byte may only carry bit 63 */
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

typedef struct {
    size_t end;
    const ProtobufCMessageDescriptor *desc;
} Frame;

static int malformed(const char *file, size_t at, const char *what) {
    diag_error("%s: malformed protobuf at byte %zu (%s)", file, at, what);
    return -1;
}

int onnx_wire_check(const uint8_t *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                    const char *file) {
    Frame stack[ONNX_MAX_NESTING + 1];
    int depth = 0;
    stack[0] = (Frame){len, desc};
    size_t pos = 0;
    if (!buf && len) return malformed(file, 0, "no data");
    for (;;) {
        while (depth > 0 && pos == stack[depth].end) depth--;
        if (pos == stack[depth].end) break; /* depth 0 and at the end of the buffer */
        size_t end = stack[depth].end;
        size_t field_at = pos;
        uint64_t tag;
        if (!read_varint(buf, end, &pos, &tag)) return malformed(file, field_at, "bad field tag");
        uint64_t number = tag >> 3;
        unsigned wt = (unsigned)(tag & 7);
        if (number == 0 || number > 0x1fffffff) return malformed(file, field_at, "bad field number");
        uint64_t skip = 0;
        switch (wt) {
        case WT_VARINT: {
            uint64_t ignored;
            if (!read_varint(buf, end, &pos, &ignored)) return malformed(file, pos, "bad varint");
            break;
        }
        case WT_FIXED64: skip = 8; break;
        case WT_FIXED32: skip = 4; break;
        case WT_LEN: {
            size_t len_at = pos;
            if (!read_varint(buf, end, &pos, &skip)) return malformed(file, len_at, "bad length");
            if (skip > end - pos) return malformed(file, len_at, "length past end of message");
            const ProtobufCMessageDescriptor *d = stack[depth].desc;
            const ProtobufCFieldDescriptor *f =
                d ? protobuf_c_message_descriptor_get_field(d, (unsigned)number) : NULL;
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (depth == ONNX_MAX_NESTING || (uint64_t)depth >= input_limit(LIMIT_PROTO_NESTING)) {
                    diag_error("%s: protobuf message nesting %d at byte %zu is above the limit %s (%llu)",
                               file, depth + 1, field_at, input_limit_name(LIMIT_PROTO_NESTING),
                               (unsigned long long)input_limit(LIMIT_PROTO_NESTING));
                    return -1;
                }
                depth++;
                stack[depth] = (Frame){pos + (size_t)skip, f->descriptor};
                continue; /* scan the submessage's fields */
            }
            break;
        }
        case WT_SGROUP:
        case WT_EGROUP: return malformed(file, field_at, "groups are not supported");
        default: return malformed(file, field_at, "bad wire type");
        }
        if (skip > end - pos) return malformed(file, pos, "field past end of message");
        pos += (size_t)skip;
    }
    return 0;
}
