// token_pick.glsl - what the device token loop's two greedy picks share (next_token.comp, and the
// vocabulary head's epilogue, matvec_rows.glsl PICK; runtime/loop.c): the order-preserving key of
// a logit, and the writes of the picked token.  The includer declares the uint buffers ids_w,
// pos_w, mask_w and ring.

// Order-preserving key of a float (larger float, larger key).
uint key_of(float x) {
    uint u = floatBitsToUint(x);
    return (u & 0x80000000u) != 0u ? ~u : u | 0x80000000u;
}

// Token id into ring entry `slot` (none: every logit was NaN, which the ring says with bit 31,
// loop.c LOOP_PICK_NAN, and the host stops with an error) and as the next step's input_ids, with
// its position_ids (pos) and attention_mask element, as `flags` say (1 ids 64-bit, 2 position_ids
// present, 4 64-bit, 8 attention_mask present, 16 64-bit; 64-bit integers are (low, high) word pairs).
void write_token(uint id, bool none, uint slot, uint pos, uint flags) {
    ring[slot] = none ? 0x80000000u : id;
    bool ids64 = (flags & 1u) != 0u, pos64 = (flags & 4u) != 0u, mask64 = (flags & 16u) != 0u;
    ids_w[0] = id;
    if (ids64) ids_w[1] = 0u;
    if ((flags & 2u) != 0u) {
        pos_w[0] = pos;
        if (pos64) pos_w[1] = 0u;
    }
    if ((flags & 8u) != 0u) {
        mask_w[mask64 ? 2u * pos : pos] = 1u;
        if (mask64) mask_w[2u * pos + 1u] = 0u;
    }
}
