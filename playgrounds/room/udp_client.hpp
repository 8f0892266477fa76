// UdpClient: the client side of one datagram connection, as a state machine (the server side
// is UdpServer; udp_packet.hpp has the packets). Like the server it never touches a socket or
// a clock: connect(), receive() and update() take the time, and outbox() collects what must
// go to the server.
//
//   connect(token)  -> SendingRequest: a request every resend_ms
//   challenge       -> SendingResponse: the challenge echoed every resend_ms
//   keep-alive      -> Connected: payloads both ways, a keep-alive after keep_alive_ms of
//                      our silence
//   and the endings: Denied (the server is full), RequestTimedOut / ResponseTimedOut (no
//   answer within the token's timeout), TokenExpired (the token's lifetime ran out while
//   connecting), TimedOut (connected, then silence for the timeout), Disconnected (either
//   side said so). Every state below Disconnected is an error the caller can show.
//
// Only datagrams from the token's server address are read; everything refused is counted by
// kind. The client measures the token's lifetime and timeout from its own clock, so server and
// client clocks need not agree.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "room/udp_datagram_queue.hpp"
#include "room/udp_error.hpp"
#include "room/udp_packet.hpp"
#include "room/udp_replay_window.hpp"
#include "room/udp_token.hpp"
#include "vantage/byte_io.hpp"

namespace vantage::room {

enum class UdpClientState : std::int8_t {
    TokenExpired = -6,
    InvalidToken = -5,
    TimedOut = -4,
    ResponseTimedOut = -3,
    RequestTimedOut = -2,
    Denied = -1,
    Disconnected = 0,
    SendingRequest = 1,
    SendingResponse = 2,
    Connected = 3,
};

constexpr const char* to_string(UdpClientState state) {
    switch (state) {
        case UdpClientState::TokenExpired:
            return "token expired";
        case UdpClientState::InvalidToken:
            return "invalid token";
        case UdpClientState::TimedOut:
            return "timed out";
        case UdpClientState::ResponseTimedOut:
            return "response timed out";
        case UdpClientState::RequestTimedOut:
            return "request timed out";
        case UdpClientState::Denied:
            return "denied";
        case UdpClientState::Disconnected:
            return "disconnected";
        case UdpClientState::SendingRequest:
            return "sending request";
        case UdpClientState::SendingResponse:
            return "sending response";
        case UdpClientState::Connected:
            return "connected";
    }
    return "unknown udp client state";
}

struct UdpClientOptions {
    std::uint64_t protocol_id = UdpTokenOptions{}.protocol_id;  // a token of another protocol is invalid
    std::uint32_t resend_ms = 100;         // request / response repeat interval while connecting, [10, 5000]
    std::uint32_t keep_alive_ms = 100;     // our silence before a keep-alive while connected, [10, 10000]
    std::uint32_t disconnect_packets = 3;  // redundant disconnects sent by disconnect(), [1, 10]
    std::string_view validate() const;
};

class UdpClient {
public:
    explicit UdpClient(const UdpClientOptions& options = {});

    // Starts connecting with a token (decoded by decode_udp_token, so structurally valid).
    // A token of another protocol makes the state InvalidToken. Asserts the client is not
    // connecting or connected already. Sends the first request at once.
    void connect(const UdpConnectToken& token, std::uint64_t now_ms);
    // One datagram from `from`. Ok when it was authentic and expected here, else the refusal
    // (also counted).
    UdpError receive(const UdpAddress& from, std::span<const std::uint8_t> bytes, std::uint64_t now_ms);
    // Resends, keep-alives and timeouts; call every tick.
    void update(std::uint64_t now_ms);
    // Seals a payload (1 to kUdpMaxPayloadBytes bytes) to the server. False unless Connected.
    bool send_payload(std::span<const std::uint8_t> payload, std::uint64_t now_ms);
    // Sends disconnect_packets disconnects when connected, then Disconnected.
    void disconnect(std::uint64_t now_ms);

    UdpClientState state() const { return state_; }
    bool connected() const { return state_ == UdpClientState::Connected; }
    std::uint32_t client_index() const { return client_index_; }  // once connected
    std::uint32_t max_clients() const { return max_clients_; }    // once connected
    const UdpAddress& server_address() const { return token_.server_address; }

    // Payloads from the server since clear_received().
    const UdpDatagramQueue& received() const { return received_; }
    void clear_received() { received_.clear(); }
    UdpDatagramQueue& outbox() { return outbox_; }
    std::uint64_t refused(UdpError error) const { return refused_[static_cast<std::size_t>(error)]; }

private:
    void send_sealed(UdpPacketType type, std::span<const std::uint8_t> body, std::uint64_t now_ms);
    void send_request(std::uint64_t now_ms);
    void send_response(std::uint64_t now_ms);
    UdpError refuse(UdpError error);

    UdpClientOptions options_;
    UdpClientState state_ = UdpClientState::Disconnected;
    UdpConnectToken token_;
    UdpChallengeBody challenge_;
    std::uint64_t connect_start_ms_ = 0;  // for the token's lifetime
    std::uint64_t stage_start_ms_ = 0;    // for the request and response timeouts
    std::uint64_t last_send_ms_ = 0;
    std::uint64_t last_receive_ms_ = 0;
    std::uint64_t send_sequence_ = 0;
    UdpReplayWindow replay_;
    std::uint32_t client_index_ = 0;
    std::uint32_t max_clients_ = 0;
    UdpDatagramQueue received_;
    UdpDatagramQueue outbox_;
    std::array<std::uint64_t, kUdpErrorCount> refused_{};
    ByteWriter scratch_;
    std::array<std::uint8_t, kUdpMaxPayloadBytes> body_{};
};

}  // namespace vantage::room
