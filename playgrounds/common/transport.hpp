// Transport: the only thing a lane's server half and client half share.
//
// A server half encodes frames for one subscriber and hands the bytes to a Transport; the
// client half takes bytes out of its own Transport, decodes them and answers with
// acknowledgements and inputs. Neither half sees the other's memory, so the client half can
// run in another process (a room: playgrounds/room/) exactly as it runs beside the server in
// a page lane.
//
// Two implementations: LinkPair (in-process, over two seeded LossyLinks, one per direction)
// and the room's socket transports (playgrounds/room/ natively, the app's web platform file
// in the browser). A message is one datagram: delivered whole or not at all, possibly late,
// duplicated or out of order when the link is impaired.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vantage/lossy_link.hpp"

namespace vantage::play {

class Transport {
public:
    virtual ~Transport() = default;
    // Offers one message at time now_ms (ms on the caller's clock). The bytes are copied.
    virtual void send(double now_ms, std::span<const std::uint8_t> bytes) = 0;
    // Moves the next message due at or before now_ms into out; false when none is.
    virtual bool poll(double now_ms, std::vector<std::uint8_t>& out) = 0;
};

// Two LossyLinks, one per direction, and the two ends that use them. The server end sends
// down and polls up; the client end sends up and polls down.
class LinkPair {
public:
    LinkPair(const LossyLinkOptions& down, const LossyLinkOptions& up) : down_(down), up_(up) {}
    LinkPair(const LinkPair&) = delete;
    LinkPair& operator=(const LinkPair&) = delete;

    Transport& server_end() { return server_; }
    Transport& client_end() { return client_; }
    LossyLink& down() { return down_; }
    LossyLink& up() { return up_; }
    const LossyLink& down() const { return down_; }
    const LossyLink& up() const { return up_; }
    // New impairments for both directions; each link keeps its own seed and random streams.
    void set_impairment(const LossyLinkOptions& o) {
        LossyLinkOptions d = o, u = o;
        d.seed = down_.options().seed;
        u.seed = up_.options().seed;
        down_.set_options(d);
        up_.set_options(u);
    }

private:
    class End final : public Transport {
    public:
        End(LossyLink& out, LossyLink& in) : out_(out), in_(in) {}
        void send(double now_ms, std::span<const std::uint8_t> bytes) override { out_.send(now_ms, bytes); }
        bool poll(double now_ms, std::vector<std::uint8_t>& out) override { return in_.poll(now_ms, out); }

    private:
        LossyLink& out_;
        LossyLink& in_;
    };
    LossyLink down_;
    LossyLink up_;
    End server_{down_, up_};
    End client_{up_, down_};
};

// The seed salts of a client's two directions: every playground derives its links' seeds
// here, so the same client index sees the same losses in every lane and every playground.
inline std::uint64_t down_link_seed(std::uint64_t seed, std::uint64_t client) {
    return mix64(seed ^ 0x646f776eULL ^ client);
}
inline std::uint64_t up_link_seed(std::uint64_t seed, std::uint64_t client) {
    return mix64(seed ^ 0x7570ULL ^ (client << 20));
}

}  // namespace vantage::play
