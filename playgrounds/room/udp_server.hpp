// UdpServer: the server side of datagram connections, as a state machine. It never touches a
// socket or a clock: receive() takes each datagram with its source address and the time,
// update() runs timeouts and keep-alives at the time given, and what must go out is appended
// to outbox() for the socket glue (UdpSocket) to send. Received payloads and connection
// events queue inside and are read and cleared by the caller.
//
// Connecting (udp_packet.hpp has the packets):
//   1. A request carries a connect token's sealed part. The server refuses it, silently and
//      counted, unless the token opens under its key, is unexpired, names this server's
//      address, and was never used from another address nor connected before. Otherwise it
//      remembers the token (until expiry) and answers with a challenge, which is smaller
//      than the request: a spoofed source address gets a small packet it cannot use.
//   2. A response echoing that challenge, sealed with the token's client key, from the same
//      address, proves the client receives there. The client takes a free slot (or gets a
//      Denied when none is free) and a keep-alive telling it its slot.
//   3. Connected: payloads and keep-alives both ways, each sealed, each checked against the
//      slot's replay window. A slot that hears nothing authentic for the token's timeout is
//      freed; so is one whose client sends a disconnect.
// A token connects once: a slot that ends (timed out, disconnected) cannot be reopened with
// the same token, because the token's keys would then start their sequences again.
//
// Every refusal is counted by kind (refused()); nothing refused gets a reply.
//
// Cost: lookups are linear scans over the slots and the used-token records (max_clients and
// max_tokens; a few thousand compares of 16 bytes at worst). Not guaranteed: fairness
// between clients when max_tokens fills (further tokens are refused as Busy until old ones
// expire).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "room/udp_datagram_queue.hpp"
#include "room/udp_error.hpp"
#include "room/udp_packet.hpp"
#include "room/udp_replay_window.hpp"
#include "room/udp_token.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::room {

struct UdpServerOptions {
    std::uint64_t protocol_id = UdpTokenOptions{}.protocol_id;  // tokens of other protocols are refused
    UdpAddress public_address{};           // the address tokens must name (as clients reach it); set
    std::uint32_t max_clients = 64;        // connected slots, [1, 4096]
    std::uint32_t max_pending = 64;        // challenges outstanding at once, [1, 4096]
    std::uint32_t max_tokens = 4096;       // used tokens remembered until they expire, [1, 65536]
    std::uint32_t keep_alive_ms = 100;     // a slot we have not sent to for this long gets a keep-alive, [10, 10000]
    std::uint32_t disconnect_packets = 3;  // redundant disconnects sent when the server ends a slot, [1, 10]
    std::string_view validate() const;
};

enum class UdpServerEventKind : std::uint8_t {
    Connected,
    Disconnected,
};

constexpr const char* to_string(UdpServerEventKind kind) {
    switch (kind) {
        case UdpServerEventKind::Connected:
            return "connected";
        case UdpServerEventKind::Disconnected:
            return "disconnected";
    }
    return "unknown udp server event kind";
}

// Why a connection ended.
enum class UdpEndReason : std::uint8_t {
    None,      // it has not ended (a Connected event)
    PeerLeft,  // the peer sent a disconnect
    TimedOut,  // nothing authentic from the peer for the token's timeout
    Closed,    // this side ended it (UdpServer::disconnect, UdpClient::disconnect)
};

constexpr const char* to_string(UdpEndReason reason) {
    switch (reason) {
        case UdpEndReason::None:
            return "none";
        case UdpEndReason::PeerLeft:
            return "peer left";
        case UdpEndReason::TimedOut:
            return "timed out";
        case UdpEndReason::Closed:
            return "closed";
    }
    return "unknown udp end reason";
}

struct UdpServerEvent {
    UdpServerEventKind kind = UdpServerEventKind::Connected;
    std::uint32_t client_index = 0;
    std::uint64_t client_id = 0;
    std::uint32_t seat = 0;
    UdpEndReason reason = UdpEndReason::None;
};

class UdpServer {
public:
    // Draws a fresh challenge key (the token key is the caller's: the issuer shares it).
    // Asserts the options are valid.
    UdpServer(const UdpServerOptions& options, const UdpKey& token_key);

    // One datagram from `from` at now_ms. Returns Ok when it was accepted (a challenge sent,
    // a connection made, a payload queued), else the refusal, which is also counted.
    UdpError receive(const UdpAddress& from, std::span<const std::uint8_t> bytes, std::uint64_t now_ms);
    // Timeouts and keep-alives; call every tick (time must not run backwards).
    void update(std::uint64_t now_ms);
    // Seals a payload (1 to kUdpMaxPayloadBytes bytes) to a connected slot. False when the
    // slot is not connected (it may have just timed out).
    bool send_payload(std::uint32_t client_index, std::span<const std::uint8_t> payload, std::uint64_t now_ms);
    // Ends a slot: disconnect_packets disconnects go out and the slot is free.
    void disconnect(std::uint32_t client_index, std::uint64_t now_ms);

    bool connected(std::uint32_t client_index) const;
    std::uint32_t connected_count() const;
    std::uint64_t client_id(std::uint32_t client_index) const;  // of a connected slot
    std::uint32_t seat(std::uint32_t client_index) const;       // of a connected slot
    const UdpAddress& address(std::uint32_t client_index) const;
    const UdpServerOptions& options() const { return options_; }

    // Payloads received since clear_received(): entry(i).slot is the client index.
    const UdpDatagramQueue& received() const { return received_; }
    void clear_received() { received_.clear(); }
    // Datagrams to send; the socket glue sends them and clears.
    UdpDatagramQueue& outbox() { return outbox_; }
    // Connections made and ended since clear_events(), in order.
    std::span<const UdpServerEvent> events() const { return events_; }
    void clear_events() { events_.clear(); }
    // Datagrams refused for this reason since construction.
    std::uint64_t refused(UdpError error) const { return refused_[static_cast<std::size_t>(error)]; }
    std::uint64_t refused_total() const;

private:
    enum class TokenState : std::uint8_t { Pending, Connected, Abandoned };
    struct TokenRecord {
        std::array<std::uint8_t, kUdpMacBytes> mac{};  // the sealed part's tag names the token
        UdpAddress address;                            // the first (and only) address it came from
        std::uint64_t expire_ms = 0;                   // the token's expiry: forgotten then
        std::uint64_t challenge_deadline_ms = 0;       // a Pending record is abandoned after this
        TokenState state = TokenState::Pending;
        UdpTokenPrivate secret;
        std::uint64_t send_sequence = 0;  // next server-to-client sequence under this token's key
    };
    struct Slot {
        bool used = false;
        bool confirmed = false;  // the client has sent a keep-alive or payload since connecting
        UdpAddress address;
        UdpTokenPrivate secret;
        std::uint64_t send_sequence = 0;
        UdpReplayWindow replay;
        std::uint64_t last_receive_ms = 0;
        std::uint64_t last_send_ms = 0;
    };

    UdpError receive_request(const UdpAddress& from, std::span<const std::uint8_t> bytes, std::uint64_t now_ms);
    UdpError receive_response(const UdpAddress& from, std::span<const std::uint8_t> bytes,
                              const UdpPacketHeader& header, std::uint64_t now_ms);
    UdpError receive_connected(const UdpAddress& from, std::span<const std::uint8_t> bytes,
                               const UdpPacketHeader& header, std::uint64_t now_ms);
    void send_sealed(Slot& slot, UdpPacketType type, std::span<const std::uint8_t> body, std::uint64_t now_ms);
    void send_keep_alive(std::uint32_t index, std::uint64_t now_ms);
    void end(std::uint32_t index, UdpEndReason reason);
    TokenRecord* pending_at(const UdpAddress& address);
    Slot* slot_at(const UdpAddress& address, std::uint32_t* index);
    bool client_connected(std::uint64_t client_id) const;
    UdpError refuse(UdpError error);

    UdpServerOptions options_;
    UdpKey token_key_;
    UdpKey challenge_key_;
    std::uint64_t challenge_sequence_ = 0;
    std::vector<Slot> slots_;
    std::vector<TokenRecord> tokens_;
    UdpDatagramQueue received_;
    UdpDatagramQueue outbox_;
    std::vector<UdpServerEvent> events_;
    std::array<std::uint64_t, kUdpErrorCount> refused_{};
    ByteWriter scratch_;                                    // one packet being built
    std::array<std::uint8_t, kUdpMaxPayloadBytes> body_{};  // one packet's opened body
};

}  // namespace vantage::room
