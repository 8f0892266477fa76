#include "horde/horde_wire.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "horde/horde_world.hpp"
#include "vantage/slot_key.hpp"

namespace vantage::play {

namespace {

constexpr std::uint64_t kParamBits = 4 + 4 + 4 + 5;
constexpr int kGap = 0, kAge = 1, kRes = 2, kAbs = 3;
constexpr int kParamWidth[4] = {4, 4, 4, 5};

std::uint64_t rice_bits(std::uint64_t v, int k) {
    return (v >> k) + 1 + static_cast<std::uint64_t>(k);
}

std::uint64_t zz32(std::int32_t v) {
    return zigzag_encode(v);
}

// The lowest-cost k of one field (lowest k on ties), and its cost.
int best_k(const std::uint64_t* costs, int field, std::uint64_t& cost) {
    int best = 0;
    for (int k = 1; k <= kRiceMaxK[field]; ++k) {
        if (costs[k] < costs[best]) best = k;
    }
    cost = costs[best];
    return best;
}

// Bits, least significant first within each byte, into a ByteWriter.
class BitWriter {
public:
    explicit BitWriter(ByteWriter& w) : w_(w) {}
    void bits(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) bit((v >> i) & 1u);
    }
    void rice(std::uint64_t v, int k) {
        for (std::uint64_t q = v >> k; q > 0; --q) bit(1);
        bit(0);
        bits(v, k);
    }
    void flush() {
        if (used_ > 0) w_.write_u8(acc_);
        acc_ = 0;
        used_ = 0;
    }

private:
    void bit(std::uint64_t b) {
        acc_ = static_cast<std::uint8_t>(acc_ | (b << used_));
        if (++used_ == 8) flush();
    }
    ByteWriter& w_;
    std::uint8_t acc_ = 0;
    int used_ = 0;
};

// The inverse over a span, sticky on error like ByteReader.
class BitReader {
public:
    explicit BitReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    std::uint64_t bits(int n) {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= bit() << i;
        return v;
    }
    // Rice(v, k) with v <= max (OutOfRange otherwise).
    std::uint64_t rice(int k, std::uint64_t max) {
        std::uint64_t q = 0;
        const std::uint64_t q_max = max >> k;
        while (ok() && bit() == 1) {
            if (++q > q_max) {
                fail(WireError::OutOfRange);
                return 0;
            }
        }
        const std::uint64_t v = (q << k) | bits(k);
        if (ok() && v > max) fail(WireError::OutOfRange);
        return ok() ? v : 0;
    }
    // The rest of the current byte must be zero bits; returns the bytes consumed.
    std::size_t finish_byte() {
        if (used_ > 0 && ok()) {
            const std::uint8_t rest = static_cast<std::uint8_t>(bytes_[pos_ - 1] >> used_);
            if (rest != 0) fail(WireError::Malformed);
        }
        return pos_;
    }
    bool ok() const { return error_ == WireError::Ok; }
    WireError error() const { return error_; }
    void fail(WireError e) {
        if (error_ == WireError::Ok) error_ = e;
    }

private:
    std::uint64_t bit() {
        if (!ok()) return 0;
        if (used_ == 0 || used_ == 8) {
            if (pos_ >= bytes_.size()) {
                fail(WireError::Truncated);
                return 0;
            }
            cur_ = bytes_[pos_++];
            used_ = 0;
        }
        return (cur_ >> used_++) & 1u;
    }
    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 0;
    std::uint8_t cur_ = 0;
    int used_ = 0;
    WireError error_ = WireError::Ok;
};

// Per-field Rice costs of a predicted block's corrections, for every k.
struct RiceCosts {
    std::uint64_t c[4][32] = {};
    std::uint64_t fixed = 0;  // flag and generation bits
    void add(int field, std::uint64_t v) {
        for (int k = 0; k <= kRiceMaxK[field]; ++k) c[field][k] += rice_bits(v, k);
    }
    void add(const HordeCorrection& x, bool first, std::uint32_t previous) {
        if (!first) add(kGap, x.index - previous - 1);
        fixed += 1;
        if (x.age > 0) {
            add(kAge, x.age - 1u);
            add(kRes, zz32(x.x));
            add(kRes, zz32(x.y));
        } else {
            fixed += 16;
            add(kAbs, zz32(x.x));
            add(kAbs, zz32(x.y));
        }
    }
    void best(int (&k)[4], std::uint64_t& bits) const {
        bits = kParamBits + fixed;
        for (int f = 0; f < 4; ++f) {
            std::uint64_t cost = 0;
            k[f] = best_k(c[f], f, cost);
            bits += cost;
        }
    }
};

std::size_t absolute_bytes(const HordeCorrection& c, bool first, std::uint32_t previous) {
    return varint_size(first ? c.index : c.index - previous) + varint_size(c.generation) + varint_size(zz32(c.x)) +
           varint_size(zz32(c.y));
}

void encode_corrections(ByteWriter& w, CorrectionCoding coding, std::span<const HordeCorrection> corrections) {
    w.write_varint((static_cast<std::uint64_t>(corrections.size()) << 1) | static_cast<std::uint64_t>(coding));
    for (std::size_t i = 1; i < corrections.size(); ++i) {
        assert(corrections[i].index > corrections[i - 1].index &&
               "encode_horde_packet: corrections must ascend by slot");
    }
    if (coding == CorrectionCoding::Absolute) {
        std::uint32_t previous = 0;
        for (std::size_t i = 0; i < corrections.size(); ++i) {
            const HordeCorrection& c = corrections[i];
            assert(c.age == 0 && "encode_horde_packet: the absolute coding has no predicted corrections");
            if (!quantum_round_trips(c.x, kSampleStep) || !quantum_round_trips(c.y, kSampleStep)) {
                w.fail(WireError::OutOfRange);
            }
            w.write_varint(i == 0 ? c.index : c.index - previous);
            w.write_varint(c.generation);
            w.write_zigzag(c.x);
            w.write_zigzag(c.y);
            previous = c.index;
        }
        return;
    }
    if (corrections.empty()) return;
    RiceCosts costs;
    for (std::size_t i = 0; i < corrections.size(); ++i) {
        const HordeCorrection& c = corrections[i];
        if (c.age == 0 && (!quantum_round_trips(c.x, kSampleStep) || !quantum_round_trips(c.y, kSampleStep))) {
            w.fail(WireError::OutOfRange);
        }
        costs.add(c, i == 0, i == 0 ? 0 : corrections[i - 1].index);
    }
    int k[4];
    std::uint64_t bits = 0;
    costs.best(k, bits);
    w.write_varint(corrections[0].index);
    BitWriter b(w);
    for (int f = 0; f < 4; ++f) b.bits(static_cast<std::uint64_t>(k[f]), kParamWidth[f]);
    for (std::size_t i = 0; i < corrections.size(); ++i) {
        const HordeCorrection& c = corrections[i];
        if (i > 0) b.rice(c.index - corrections[i - 1].index - 1, k[kGap]);
        b.bits(c.age > 0 ? 1u : 0u, 1);
        if (c.age > 0) {
            b.rice(c.age - 1u, k[kAge]);
            b.rice(zz32(c.x), k[kRes]);
            b.rice(zz32(c.y), k[kRes]);
        } else {
            b.bits(c.generation, 16);
            b.rice(zz32(c.x), k[kAbs]);
            b.rice(zz32(c.y), k[kAbs]);
        }
    }
    b.flush();
}

// The corrections part at r's position; advances r past it.
void decode_corrections(ByteReader& r, std::span<const std::uint8_t> bytes, HordePacket& out) {
    const std::uint64_t head = r.read_varint_max((std::uint64_t{65536} << 1) | 1u);
    if (!r.ok()) return;
    const std::size_t count = static_cast<std::size_t>(head >> 1);
    out.coding = (head & 1u) ? CorrectionCoding::Predicted : CorrectionCoding::Absolute;
    if (out.coding == CorrectionCoding::Absolute) {
        // Each correction takes at least 4 bytes.
        if (count > r.remaining() / 4) {
            r.fail(WireError::TooMany);
            return;
        }
        std::uint64_t index = 0;
        for (std::size_t i = 0; i < count && r.ok(); ++i) {
            const std::uint64_t gap = r.read_varint_max(UINT32_MAX);
            if (r.ok() && i > 0 && gap == 0) r.fail(WireError::NotAscending);
            index += gap;
            if (r.ok() && index > UINT32_MAX) r.fail(WireError::OutOfRange);
            const std::uint64_t generation = r.read_varint_max(0xffffu);
            const std::int64_t x = r.read_zigzag();
            const std::int64_t y = r.read_zigzag();
            if (r.ok() && (!quantum_round_trips(x, kSampleStep) || !quantum_round_trips(y, kSampleStep))) {
                r.fail(WireError::OutOfRange);
            }
            if (!r.ok()) break;
            out.corrections.push_back({static_cast<std::uint32_t>(index), static_cast<std::uint16_t>(generation), 0,
                                       static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)});
        }
        return;
    }
    if (count == 0) return;
    const std::uint64_t first = r.read_varint_max(UINT32_MAX);
    if (!r.ok()) return;
    // Each correction takes at least 4 bits (flag and three one-bit Rice codes).
    if (count > (r.remaining() * 8) / 4) {
        r.fail(WireError::TooMany);
        return;
    }
    BitReader b(bytes.subspan(r.position()));
    int k[4];
    for (int f = 0; f < 4; ++f) {
        k[f] = static_cast<int>(b.bits(kParamWidth[f]));
        if (b.ok() && k[f] > kRiceMaxK[f]) b.fail(WireError::OutOfRange);
    }
    RiceCosts costs;
    std::uint64_t index = first;
    for (std::size_t i = 0; i < count && b.ok(); ++i) {
        if (i > 0) {
            const std::uint64_t gap = b.rice(k[kGap], UINT32_MAX - 1u) + 1u;
            if (b.ok() && index + gap > UINT32_MAX) b.fail(WireError::OutOfRange);
            index += gap;
        }
        HordeCorrection c;
        c.index = static_cast<std::uint32_t>(index);
        if (b.bits(1) == 1) {
            c.age = static_cast<std::uint32_t>(b.rice(k[kAge], UINT32_MAX - 1u) + 1u);
            c.x = static_cast<std::int32_t>(zigzag_decode(b.rice(k[kRes], UINT32_MAX)));
            c.y = static_cast<std::int32_t>(zigzag_decode(b.rice(k[kRes], UINT32_MAX)));
        } else {
            c.generation = static_cast<std::uint16_t>(b.bits(16));
            c.x = static_cast<std::int32_t>(zigzag_decode(b.rice(k[kAbs], UINT32_MAX)));
            c.y = static_cast<std::int32_t>(zigzag_decode(b.rice(k[kAbs], UINT32_MAX)));
            if (b.ok() && (!quantum_round_trips(c.x, kSampleStep) || !quantum_round_trips(c.y, kSampleStep))) {
                b.fail(WireError::OutOfRange);
            }
        }
        if (!b.ok()) break;
        costs.add(c, i == 0, i == 0 ? 0 : out.corrections.back().index);
        out.corrections.push_back(c);
    }
    const std::size_t used = b.finish_byte();
    if (b.ok()) {
        // One packet, one encoding: the parameters must be the ones the encoder picks.
        int want[4];
        std::uint64_t bits = 0;
        costs.best(want, bits);
        for (int f = 0; f < 4; ++f) {
            if (want[f] != k[f]) b.fail(WireError::Malformed);
        }
    }
    if (!b.ok()) {
        r.fail(b.error());
        return;
    }
    for (std::size_t i = 0; i < used; ++i) r.read_u8();
}

std::uint64_t bit_width(std::uint64_t v) {
    std::uint64_t n = 0;
    while (v >> n) ++n;
    return n;
}

// The quanta entered positions are sent relative to (the viewer's player, or the origin).
bool viewer_quanta(std::span<const Vec2> players, std::size_t viewer, std::int64_t& x, std::int64_t& y) {
    x = y = 0;
    if (viewer >= players.size()) return true;
    const std::optional<std::int32_t> qx = quantize(players[viewer].x, kSampleStep);
    const std::optional<std::int32_t> qy = quantize(players[viewer].y, kSampleStep);
    if (!qx || !qy) return false;
    x = *qx;
    y = *qy;
    return true;
}

// The entered positions' part of the predicted coding (see the format comment); w fails on a
// position that does not quantize. repeated[i] != 0: key i travels without its position.
void encode_entered(ByteWriter& w, std::span<const Vec2> positions, std::span<const std::uint8_t> repeated,
                    std::span<const Vec2> players, std::size_t viewer) {
    std::int64_t vx = 0, vy = 0;
    if (!viewer_quanta(players, viewer, vx, vy)) w.fail(WireError::OutOfRange);
    auto rel = [&](float v, std::int64_t origin) {
        const std::optional<std::int32_t> q = quantize(v, kSampleStep);
        if (!q) {
            w.fail(std::isfinite(v) ? WireError::OutOfRange : WireError::NotFinite);
            return std::uint64_t{0};
        }
        return zigzag_encode(static_cast<std::int64_t>(*q) - origin);
    };
    auto is_repeat = [&](std::size_t i) { return i < repeated.size() && repeated[i] != 0; };
    std::uint64_t widest = 0;
    bool any_repeat = false;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (is_repeat(i)) {
            any_repeat = true;
            continue;
        }
        widest = std::max({widest, rel(positions[i].x, vx), rel(positions[i].y, vy)});
    }
    const int width = static_cast<int>(bit_width(widest));
    w.write_varint(std::min(viewer, players.size()));
    BitWriter b(w);
    b.bits(static_cast<std::uint64_t>(width), 6);
    b.bits(any_repeat ? 1u : 0u, 1);
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (any_repeat) b.bits(is_repeat(i) ? 0u : 1u, 1);
        if (is_repeat(i)) continue;
        b.bits(rel(positions[i].x, vx), width);
        b.bits(rel(positions[i].y, vy), width);
    }
    b.flush();
}

// Its inverse: `count` positions into out (a repeat's as the origin, flagged in out.repeated).
void decode_entered(ByteReader& r, std::span<const std::uint8_t> bytes, std::size_t count, HordePacket& out) {
    const std::uint64_t viewer = r.read_varint_max(out.players.size());
    if (!r.ok()) return;
    out.viewer = static_cast<std::uint32_t>(viewer);
    std::int64_t vx = 0, vy = 0;
    viewer_quanta(out.players, out.viewer, vx, vy);  // the players decoded, so they quantize
    BitReader b(bytes.subspan(r.position()));
    const int width = static_cast<int>(b.bits(6));
    if (b.ok() && width > 34) b.fail(WireError::OutOfRange);  // two int32 quanta differ by < 2^33
    const bool any_repeat = b.bits(1) == 1;
    // Without repeats every key has its two values; with them at least one flag bit each.
    const std::uint64_t least_bits = any_repeat ? count : static_cast<std::uint64_t>(width) * 2 * count;
    if (b.ok() && least_bits > 8 * (bytes.size() - r.position())) b.fail(WireError::Truncated);
    // A full baseline speaks about every slot afresh: the server sends each its position.
    if (b.ok() && any_repeat && out.delta.plan.full_baseline) b.fail(WireError::Malformed);
    std::uint64_t widest = 0;
    bool saw_repeat = false;
    if (any_repeat && b.ok()) out.repeated.assign(count, 0);
    for (std::size_t i = 0; i < count && b.ok(); ++i) {
        if (any_repeat && b.bits(1) == 0) {
            if (!b.ok()) break;
            saw_repeat = true;
            out.repeated[i] = 1;
            out.delta.entered_positions.push_back({});
            continue;
        }
        const std::uint64_t zx = b.bits(width);
        const std::uint64_t zy = b.bits(width);
        widest = std::max({widest, zx, zy});
        const std::int64_t x = vx + zigzag_decode(zx);
        const std::int64_t y = vy + zigzag_decode(zy);
        if (b.ok() && (!quantum_round_trips(x, kSampleStep) || !quantum_round_trips(y, kSampleStep))) {
            b.fail(WireError::OutOfRange);
        }
        if (!b.ok()) break;
        out.delta.entered_positions.push_back({dequantize(static_cast<std::int32_t>(x), kSampleStep),
                                               dequantize(static_cast<std::int32_t>(y), kSampleStep)});
    }
    const std::size_t used = b.finish_byte();
    // The narrowest width that holds every value, as the encoder picks; the repeat flag only
    // when some key is a repeat.
    if (b.ok() && bit_width(widest) != static_cast<std::uint64_t>(width)) b.fail(WireError::Malformed);
    if (b.ok() && any_repeat && !saw_repeat) b.fail(WireError::Malformed);
    if (!b.ok()) {
        out.repeated.clear();
        r.fail(b.error());
        return;
    }
    for (std::size_t i = 0; i < used; ++i) r.read_u8();
}

// Everything after the membership frame: players, corrections, crowd, then the end.
WireError decode_after_membership(ByteReader& r, std::span<const std::uint8_t> bytes, HordePacket& out) {
    const std::size_t players = r.read_count(kMaxHordePlayers, 2);
    for (std::size_t i = 0; i < players && r.ok(); ++i) out.players.push_back(r.read_fixed2(kSampleStep));
    // Positions inside the delta frame: the absolute coding's layout; entered keys without
    // them: the predicted coding's entered part follows the players.
    const bool in_frame = !out.delta.entered_positions.empty();
    const bool section = !in_frame && !out.delta.plan.entered.empty();
    if (r.ok() && section) decode_entered(r, bytes, out.delta.plan.entered.size(), out);
    if (r.ok()) decode_corrections(r, bytes, out);
    if (r.ok() && ((in_frame && out.coding != CorrectionCoding::Absolute) ||
                   (section && out.coding != CorrectionCoding::Predicted))) {
        r.fail(WireError::Malformed);
    }
    const std::size_t blobs = r.read_count(65536, 3);
    for (std::size_t i = 0; i < blobs && r.ok(); ++i) {
        const Vec2 p = r.read_fixed2(kCrowdStep);
        const std::uint32_t count = r.read_varint_u32();
        if (r.ok() && count == 0) r.fail(WireError::Malformed);
        out.crowd.push_back({p, count});
    }
    if (!r.finish()) {
        out.players.clear();
        out.corrections.clear();
        out.crowd.clear();
        out.delta.entered_positions.clear();
        out.repeated.clear();
        return r.error();
    }
    return WireError::Ok;
}

}  // namespace

void HordeRefs::push(const HordeRef& r, std::uint64_t newest) {
    // Ascending seq is descending age from the newest frame.
    std::size_t at = 0;
    while (at < count && refs[at].age(newest) > r.age(newest)) ++at;
    if (at < count && refs[at].seq == r.seq) return;
    if (count == kHordeRefs) {
        if (at == 0) return;  // older than everything kept
        for (std::size_t i = 1; i < at; ++i) refs[i - 1] = refs[i];
        refs[at - 1] = r;
        return;
    }
    for (std::size_t i = count; i > at; --i) refs[i] = refs[i - 1];
    refs[at] = r;
    ++count;
}

const HordeRef* HordeRefs::find(std::uint64_t now, std::uint32_t age) const {
    const auto seq = static_cast<std::uint32_t>(now - age);
    for (std::size_t i = 0; i < count; ++i) {
        if (refs[i].seq == seq) return &refs[i];
    }
    return nullptr;
}

bool quantum_round_trips(std::int64_t q, float step) {
    if (q < INT32_MIN || q > INT32_MAX) return false;
    const std::optional<std::int32_t> back = quantize(dequantize(static_cast<std::int32_t>(q), step), step);
    return back && *back == q;
}

Vec2 predict_enemy(Vec2 sent, std::uint64_t key, std::span<const Vec2> players, float age_s) {
    if (players.empty()) return sent;
    return chase_step(sent, key, players[nearest_player(sent, players)], std::max(0.0f, age_s));
}

bool predict_enemy_quanta(std::int32_t x, std::int32_t y, std::uint64_t key, std::span<const Vec2> players, float age_s,
                          std::int32_t& out_x, std::int32_t& out_y) {
    const Vec2 p = predict_enemy({dequantize(x, kSampleStep), dequantize(y, kSampleStep)}, key, players, age_s);
    const std::optional<std::int32_t> qx = quantize(p.x, kSampleStep);
    const std::optional<std::int32_t> qy = quantize(p.y, kSampleStep);
    if (!qx || !qy) return false;
    out_x = *qx;
    out_y = *qy;
    return true;
}

std::size_t entered_part_bytes(std::span<const Vec2> positions, std::span<const Vec2> players, std::size_t viewer,
                               std::span<const std::uint8_t> repeated) {
    if (positions.empty()) return 0;
    std::int64_t vx = 0, vy = 0;
    viewer_quanta(players, viewer, vx, vy);
    std::uint64_t widest = 0;
    std::uint64_t sent = 0;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (i < repeated.size() && repeated[i] != 0) continue;
        // An unencodable position fails the packet anyway; count it as the widest.
        const std::optional<std::int32_t> qx = quantize(positions[i].x, kSampleStep);
        const std::optional<std::int32_t> qy = quantize(positions[i].y, kSampleStep);
        if (!qx || !qy) return kMaxHordePacketBytes;
        widest = std::max({widest, zigzag_encode(*qx - vx), zigzag_encode(*qy - vy)});
        ++sent;
    }
    const bool any_repeat = sent < positions.size();
    const std::uint64_t bits =
        6 + 1 + 2 * bit_width(widest) * sent + (any_repeat ? static_cast<std::uint64_t>(positions.size()) : 0);
    return varint_size(std::min(viewer, players.size())) + static_cast<std::size_t>((bits + 7) / 8);
}

void CorrectionSizer::add(const HordeCorrection& c) {
    if (coding_ == CorrectionCoding::Absolute) {
        fixed_bits_ += absolute_bytes(c, count_ == 0, last_);
    } else {
        if (count_ > 0) add_value(kGap, c.index - last_ - 1, costs_);
        fixed_bits_ += 1;
        if (c.age > 0) {
            add_value(kAge, c.age - 1u, costs_);
            add_value(kRes, zz32(c.x), costs_);
            add_value(kRes, zz32(c.y), costs_);
        } else {
            fixed_bits_ += 16;
            add_value(kAbs, zz32(c.x), costs_);
            add_value(kAbs, zz32(c.y), costs_);
        }
    }
    if (count_ == 0) first_ = c.index;
    last_ = c.index;
    ++count_;
}

void CorrectionSizer::add_value(int field, std::uint64_t v, std::uint64_t (&costs)[kFields][kMaxK]) const {
    for (int k = 0; k <= kRiceMaxK[field]; ++k) costs[field][k] += rice_bits(v, k);
}

std::size_t CorrectionSizer::bytes_of(std::size_t count, std::uint32_t first, std::uint64_t fixed_bits,
                                      const std::uint64_t (&costs)[kFields][kMaxK]) const {
    const std::size_t head =
        varint_size((static_cast<std::uint64_t>(count) << 1) | static_cast<std::uint64_t>(coding_));
    if (coding_ == CorrectionCoding::Absolute) return head + static_cast<std::size_t>(fixed_bits);
    if (count == 0) return head;
    std::uint64_t bits = kParamBits + fixed_bits;
    for (int f = 0; f < kFields; ++f) {
        std::uint64_t cost = 0;
        best_k(costs[f], f, cost);
        bits += cost;
    }
    return head + varint_size(first) + static_cast<std::size_t>((bits + 7) / 8);
}

std::size_t CorrectionSizer::bytes() const {
    return bytes_of(count_, first_, fixed_bits_, costs_);
}

std::size_t CorrectionSizer::bytes_with(const HordeCorrection& c) const {
    CorrectionSizer next = *this;
    next.add(c);
    return next.bytes();
}

bool CorrectionSizer::fits_with(const HordeCorrection& c, std::size_t room) const {
    if (coding_ == CorrectionCoding::Absolute || count_ == 0) return bytes_with(c) <= room;
    // Adding values raises every k's cost, so the best total rises by at most c's bits at the
    // current best parameters: when that bound fits, so does the exact size.
    std::uint64_t bits = kParamBits + fixed_bits_;
    int k[kFields];
    for (int f = 0; f < kFields; ++f) {
        std::uint64_t cost = 0;
        k[f] = best_k(costs_[f], f, cost);
        bits += cost;
    }
    bits += 1 + rice_bits(c.index - last_ - 1, k[kGap]);
    if (c.age > 0) {
        bits += rice_bits(c.age - 1u, k[kAge]) + rice_bits(zz32(c.x), k[kRes]) + rice_bits(zz32(c.y), k[kRes]);
    } else {
        bits += 16 + rice_bits(zz32(c.x), k[kAbs]) + rice_bits(zz32(c.y), k[kAbs]);
    }
    const std::size_t bound = varint_size((static_cast<std::uint64_t>(count_ + 1) << 1) | 1u) + varint_size(first_) +
                              static_cast<std::size_t>((bits + 7) / 8);
    return bound <= room || bytes_with(c) <= room;
}

HordePacketBytes encode_horde_packet(ByteWriter& w, ByteWriter& scratch, std::uint64_t time_ms, const DeltaPlan& plan,
                                     std::span<const Vec2> entered_positions, std::span<const Vec2> players,
                                     std::size_t viewer, CorrectionCoding coding,
                                     std::span<const HordeCorrection> corrections, std::span<const CrowdBlob> crowd,
                                     std::span<const std::uint8_t> repeated) {
    HordePacketBytes sizes;
    scratch.clear();
    const bool section = coding == CorrectionCoding::Predicted && !plan.entered.empty();
    assert((entered_positions.empty() || entered_positions.size() == plan.entered.size()) &&
           "encode_horde_packet: one position per entered key");
    assert((!section || !entered_positions.empty()) && "encode_horde_packet: the predicted coding sends positions");
    assert((repeated.empty() || repeated.size() == plan.entered.size()) &&
           "encode_horde_packet: one repeat flag per entered key");
    assert((std::none_of(repeated.begin(), repeated.end(), [](std::uint8_t r) { return r != 0; }) ||
            (section && !plan.full_baseline)) &&
           "encode_horde_packet: repeats only in the predicted coding and never in a full baseline");
    encode_delta_frame(scratch, plan, section ? std::span<const Vec2>{} : entered_positions);
    w.clear();
    w.write_u8(kHordePacketType);
    w.write_varint(time_ms);
    w.write_varint(scratch.size());
    sizes.header = w.size();
    w.write_bytes(scratch.bytes());
    sizes.membership = scratch.size();

    std::size_t mark = w.size();
    w.write_varint(players.size());
    for (Vec2 p : players) w.write_fixed2(p, kSampleStep);
    sizes.players = w.size() - mark;

    if (section) {
        mark = w.size();
        encode_entered(w, entered_positions, repeated, players, viewer);
        sizes.membership += w.size() - mark;
    }

    mark = w.size();
    encode_corrections(w, coding, corrections);
    sizes.samples = w.size() - mark;

    mark = w.size();
    w.write_varint(crowd.size());
    for (const CrowdBlob& b : crowd) {
        w.write_fixed2(b.position, kCrowdStep);
        w.write_varint(b.count);
    }
    sizes.crowd = w.size() - mark;
    sizes.ok = scratch.ok() && w.ok() && w.size() <= kMaxHordePacketBytes;
    return sizes;
}

HordePacketBytes encode_horde_packet(ByteWriter& w, ByteWriter& scratch, const HordePacket& p) {
    return encode_horde_packet(w, scratch, p.time_ms, p.delta.plan, p.delta.entered_positions, p.players, p.viewer,
                               p.coding, p.corrections, p.crowd, p.repeated);
}

WireError decode_horde_packet(std::span<const std::uint8_t> bytes, HordePacket& out) {
    // Room for the most one datagram can hold, once: decoding then never allocates.
    if (out.corrections.capacity() < kMaxHordePacketBytes * 2) {
        out.corrections.reserve(kMaxHordePacketBytes * 2);  // a correction takes at least 4 bits
        out.players.reserve(kMaxHordePlayers);
        out.crowd.reserve(kMaxHordePacketBytes / 3);  // a blob takes at least 3 bytes
        out.repeated.reserve(kMaxHordePacketBytes);   // an entered key takes at least a byte
    }
    out.players.clear();
    out.corrections.clear();
    out.crowd.clear();
    out.delta.entered_positions.clear();
    out.repeated.clear();
    out.viewer = 0;
    if (bytes.size() > kMaxHordePacketBytes) return WireError::TooLarge;
    ByteReader r(bytes);
    if (r.read_u8() != kHordePacketType) {
        if (!r.ok()) return r.error();
        return WireError::UnknownType;
    }
    out.time_ms = r.read_varint();
    const std::size_t frame_len = r.read_count(bytes.size(), 1);
    if (!r.ok()) return r.error();
    const WireError frame_error = decode_delta_frame(bytes.subspan(r.position(), frame_len), out.delta);
    if (frame_error != WireError::Ok) return frame_error;
    // read_count checked frame_len against the bytes left, so the rest starts inside the span.
    const std::span<const std::uint8_t> rest_bytes = bytes.subspan(r.position() + frame_len);
    ByteReader rest(rest_bytes);
    return decode_after_membership(rest, rest_bytes, out);
}

}  // namespace vantage::play
