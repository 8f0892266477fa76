// The packet inspector's reading of a decode: every field a decoder read, in order, with
// where it sits in the packet, how many bytes it took, its name and its value as decoded.
//
// One parser: a decoder that can narrate takes an optional std::vector<WireField>* and calls a
// WireNarrator after each field; without a trace the narration costs a branch per field and
// builds no strings, so a steady stream still decodes without allocating.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vantage/byte_io.hpp"
#include "vantage/vec.hpp"

namespace vantage::play {

struct WireField {
    std::size_t offset = 0;
    std::size_t size = 0;
    std::string name;   // "corrections[2]"
    std::string value;  // "pellet 1204 at (812.4, 90.1)"
};

// Records the fields a decoder reads when a trace was asked for: each field() covers the bytes
// read since the previous one (so the fields tile the bytes read). Clears the trace first.
// The first field read with the reader failed is the last one recorded (the one that failed);
// error() then names the reason.
class WireNarrator {
public:
    WireNarrator(std::vector<WireField>* trace, const ByteReader& in) : trace_(trace), in_(in) {
        if (trace_) trace_->clear();
    }
    template <class Describe>
    void field(const char* name, Describe describe) {
        if (!trace_ || stopped_) return;
        push(name, describe());
    }
    // A name built only when narrating.
    template <class Name, class Describe>
    void field_named(Name name, Describe describe) {
        if (!trace_ || stopped_) return;
        push(name(), describe());
    }
    // After a failed decode: a last field "error" with the reader's reason.
    void error() {
        if (!trace_ || in_.ok()) return;
        trace_->push_back({start_, in_.position() - start_, "error", to_string(in_.error())});
        start_ = in_.position();
    }
    bool narrating() const { return trace_ != nullptr; }

private:
    void push(std::string name, std::string value) {
        trace_->push_back({start_, in_.position() - start_, std::move(name), std::move(value)});
        start_ = in_.position();
        stopped_ = !in_.ok();
    }

    std::vector<WireField>* trace_;
    const ByteReader& in_;
    std::size_t start_ = 0;
    bool stopped_ = false;
};

// Values as the inspector prints them: exact for the quantised values the wire carries.
std::string wire_ms_text(double ms);
std::string wire_vec_text(Vec2 v, const char* unit);
std::string wire_int_text(std::uint64_t v);
// The bytes [offset, offset + size) of `bytes` as hex pairs ("0A 1F "), clipped to the span.
std::string wire_hex(std::span<const std::uint8_t> bytes, std::size_t offset, std::size_t size);

}  // namespace vantage::play
