#include "vantage/delta_stream.hpp"

#include <cmath>

namespace vantage {
namespace {

const DeltaStreamOptions& checked(const DeltaStreamOptions& options) {
    VANTAGE_ASSERT_VALID(options, "DeltaStream: invalid DeltaStreamOptions");
    return options;
}

}  // namespace

std::string_view DeltaStreamOptions::validate() const {
    if (const std::string_view why = baseline().validate(); !why.empty()) return why;
    if (const std::string_view why = wire().validate(); !why.empty()) return why;
    if (!std::isfinite(position_max_abs) || position_max_abs <= 0.0f) return "position_max_abs must be > 0";
    if (positions && wire().position_bytes_bound(position_max_abs) > 16)
        return "position_max_abs / position_step is too large: a position would take more than 16 bytes";
    return {};
}

DeltaBaselineOptions DeltaStreamOptions::baseline() const {
    DeltaBaselineOptions o{.policy = policy,
                           .frontier = frontier,
                           .history = history,
                           .stalled_after_ms = stalled_after_ms,
                           .keepalive_every_ms = keepalive_every_ms,
                           .max_frame_bytes = max_frame_bytes,
                           .entered_value_bytes = 0,
                           .max_keys = max_keys};
    // The bound is only meaningful for a valid wire; validate() reports a bad one.
    if (positions && std::isfinite(position_max_abs) && position_max_abs > 0.0f && wire().validate().empty())
        o.entered_value_bytes = wire().position_bytes_bound(position_max_abs);
    return o;
}

WireOptions DeltaStreamOptions::wire() const {
    return {.position_step = position_step, .max_keys = max_keys, .max_frame_bytes = max_frame_bytes};
}

DeltaStream::DeltaStream(const DeltaStreamOptions& options)
    : options_(checked(options)), wire_(options.wire()), baseline_(options.baseline()) {}

StreamStatus DeltaStream::frame(std::span<const std::uint64_t> relevant, double now_ms, ByteWriter& out,
                                std::size_t max_frame_bytes) {
    VANTAGE_ASSERT(!options_.positions, "DeltaStream::frame: options().positions needs a position_of");
    // Without positions the lookup is never called.
    return frame(
        relevant, [](SlotKey) { return Vec2{}; }, now_ms, out, max_frame_bytes);
}

void DeltaStream::plan(std::span<const std::uint64_t> relevant, std::size_t max_frame_bytes) {
    if (max_frame_bytes == 0) {
        baseline_.plan(relevant, plan_);
    } else {
        baseline_.plan(relevant, plan_, max_frame_bytes);
    }
}

StreamStatus DeltaStream::encode(ByteWriter& out) {
    encode_delta_frame(out, plan_, positions_, wire_);
    if (!out.ok()) {
        // Planned and recorded as sent, never delivered: exactly a lost frame to the baseline.
        out.clear();
        counters_.refused += 1;
        return StreamStatus::Refused;
    }
    counters_.frames += 1;
    counters_.frame_bytes += out.size();
    counters_.largest_frame_bytes = std::max(counters_.largest_frame_bytes, out.size());
    return StreamStatus::Ok;
}

AckOutcome DeltaStream::observe_ack(const AckReport& report, double now_ms) {
    const AckOutcome outcome = baseline_.observe_ack(report, now_ms);
    if (outcome == AckOutcome::Rejected) {
        counters_.bad_acks += 1;
    } else {
        counters_.acks += 1;
    }
    return outcome;
}

WireError DeltaStream::receive_ack(std::span<const std::uint8_t> bytes, double now_ms) {
    AckReport report;
    const WireError error = decode_ack(bytes, report);
    if (error != WireError::Ok) {
        counters_.bad_acks += 1;
        return error;
    }
    observe_ack(report, now_ms);
    return WireError::Ok;
}

}  // namespace vantage
