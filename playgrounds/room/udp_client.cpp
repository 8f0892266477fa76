#include "room/udp_client.hpp"

#include "vantage/assert.hpp"

namespace vantage::room {

std::string_view UdpClientOptions::validate() const {
    if (resend_ms < 10 || resend_ms > 5000) return "resend_ms must be in [10, 5000]";
    if (keep_alive_ms < 10 || keep_alive_ms > 10000) return "keep_alive_ms must be in [10, 10000]";
    if (disconnect_packets < 1 || disconnect_packets > 10) return "disconnect_packets must be in [1, 10]";
    return {};
}

UdpClient::UdpClient(const UdpClientOptions& options) : options_(options) {
    VANTAGE_ASSERT_VALID(options, "UdpClient: invalid options");
}

UdpError UdpClient::refuse(UdpError error) {
    ++refused_[static_cast<std::size_t>(error)];
    return error;
}

void UdpClient::connect(const UdpConnectToken& token, std::uint64_t now_ms) {
    VANTAGE_ASSERT(state_ != UdpClientState::SendingRequest && state_ != UdpClientState::SendingResponse &&
                       state_ != UdpClientState::Connected,
                   "UdpClient::connect: already connecting or connected");
    token_ = token;
    send_sequence_ = 0;
    replay_ = UdpReplayWindow{};
    received_.clear();
    client_index_ = 0;
    max_clients_ = 0;
    if (token.protocol_id != options_.protocol_id || token.expire_ms <= token.create_ms) {
        state_ = UdpClientState::InvalidToken;
        return;
    }
    state_ = UdpClientState::SendingRequest;
    connect_start_ms_ = now_ms;
    stage_start_ms_ = now_ms;
    last_receive_ms_ = now_ms;
    send_request(now_ms);
}

UdpError UdpClient::receive(const UdpAddress& from, std::span<const std::uint8_t> bytes, std::uint64_t now_ms) {
    if (from != token_.server_address) return refuse(UdpError::UnknownAddress);
    if (state_ != UdpClientState::SendingRequest && state_ != UdpClientState::SendingResponse &&
        state_ != UdpClientState::Connected)
        return refuse(UdpError::WrongType);  // not expecting anything
    if (bytes.empty()) return refuse(UdpError::WrongSize);
    UdpPacketHeader header;
    if (const UdpError error = read_udp_header(bytes, header); error != UdpError::Ok) return refuse(error);
    // What each state reads; everything else (a server never sends a response; a challenge
    // after the first; payloads before the slot is known) is refused.
    bool expected = false;
    switch (header.type) {
        case UdpPacketType::Denied:
            expected = state_ == UdpClientState::SendingRequest || state_ == UdpClientState::SendingResponse;
            break;
        case UdpPacketType::Challenge:
            expected = state_ == UdpClientState::SendingRequest;
            break;
        case UdpPacketType::KeepAlive:
            expected = state_ == UdpClientState::SendingResponse || state_ == UdpClientState::Connected;
            break;
        case UdpPacketType::Payload:
        case UdpPacketType::Disconnect:
            expected = state_ == UdpClientState::Connected;
            break;
        default:
            break;
    }
    if (!expected) return refuse(UdpError::WrongType);
    const bool replay_protected = header.type == UdpPacketType::KeepAlive || header.type == UdpPacketType::Payload ||
                                  header.type == UdpPacketType::Disconnect;
    if (replay_protected && replay_.already_received(header.sequence)) return refuse(UdpError::Replayed);
    std::size_t body_size = 0;
    if (const UdpError error =
            open_udp_packet(bytes, header, token_.server_to_client_key, token_.protocol_id, body_, body_size);
        error != UdpError::Ok)
        return refuse(error);
    const std::span<const std::uint8_t> body = std::span(body_).first(body_size);
    switch (header.type) {
        case UdpPacketType::Denied:
            state_ = UdpClientState::Denied;
            break;
        case UdpPacketType::Challenge: {
            if (const UdpError error = decode_udp_challenge_body(body, challenge_); error != UdpError::Ok)
                return refuse(error);
            state_ = UdpClientState::SendingResponse;
            stage_start_ms_ = now_ms;
            send_response(now_ms);
            break;
        }
        case UdpPacketType::KeepAlive: {
            UdpKeepAliveBody keep_alive;
            if (const UdpError error = decode_udp_keep_alive_body(body, keep_alive); error != UdpError::Ok)
                return refuse(error);
            if (state_ == UdpClientState::SendingResponse) {
                client_index_ = keep_alive.client_index;
                max_clients_ = keep_alive.max_clients;
                state_ = UdpClientState::Connected;
            }
            break;
        }
        case UdpPacketType::Payload:
            received_.push(from, 0, body);
            break;
        case UdpPacketType::Disconnect:
            state_ = UdpClientState::Disconnected;
            break;
        default:
            break;
    }
    if (replay_protected) replay_.record(header.sequence);
    last_receive_ms_ = now_ms;
    return UdpError::Ok;
}

void UdpClient::update(std::uint64_t now_ms) {
    VANTAGE_ASSERT(now_ms >= last_receive_ms_ && now_ms >= last_send_ms_, "UdpClient::update: time ran backwards");
    switch (state_) {
        case UdpClientState::SendingRequest:
        case UdpClientState::SendingResponse:
            if (now_ms - connect_start_ms_ >= token_.lifetime_ms()) {
                state_ = UdpClientState::TokenExpired;
            } else if (now_ms - stage_start_ms_ >= token_.timeout_ms) {
                state_ = state_ == UdpClientState::SendingRequest ? UdpClientState::RequestTimedOut
                                                                  : UdpClientState::ResponseTimedOut;
            } else if (now_ms - last_send_ms_ >= options_.resend_ms) {
                if (state_ == UdpClientState::SendingRequest) {
                    send_request(now_ms);
                } else {
                    send_response(now_ms);
                }
            }
            break;
        case UdpClientState::Connected:
            if (now_ms - last_receive_ms_ >= token_.timeout_ms) {
                state_ = UdpClientState::TimedOut;
            } else if (now_ms - last_send_ms_ >= options_.keep_alive_ms) {
                ByteWriter body;
                encode_udp_keep_alive_body({client_index_, max_clients_}, body);
                send_sealed(UdpPacketType::KeepAlive, body.bytes(), now_ms);
            }
            break;
        default:
            break;
    }
}

bool UdpClient::send_payload(std::span<const std::uint8_t> payload, std::uint64_t now_ms) {
    VANTAGE_ASSERT(!payload.empty() && payload.size() <= kUdpMaxPayloadBytes,
                   "UdpClient::send_payload: a payload must be 1 to 1200 bytes");
    if (state_ != UdpClientState::Connected) return false;
    send_sealed(UdpPacketType::Payload, payload, now_ms);
    return true;
}

void UdpClient::disconnect(std::uint64_t now_ms) {
    if (state_ == UdpClientState::Connected)
        for (std::uint32_t i = 0; i < options_.disconnect_packets; ++i)
            send_sealed(UdpPacketType::Disconnect, {}, now_ms);
    state_ = UdpClientState::Disconnected;
}

void UdpClient::send_sealed(UdpPacketType type, std::span<const std::uint8_t> body, std::uint64_t now_ms) {
    scratch_.clear();
    seal_udp_packet(type, send_sequence_++, body, token_.client_to_server_key, token_.protocol_id, scratch_);
    outbox_.push(token_.server_address, 0, scratch_.bytes());
    last_send_ms_ = now_ms;
}

void UdpClient::send_request(std::uint64_t now_ms) {
    scratch_.clear();
    encode_udp_request(UdpConnectRequest::from(token_), scratch_);
    outbox_.push(token_.server_address, 0, scratch_.bytes());
    last_send_ms_ = now_ms;
}

void UdpClient::send_response(std::uint64_t now_ms) {
    ByteWriter body;
    encode_udp_challenge_body(challenge_, body);
    send_sealed(UdpPacketType::Response, body.bytes(), now_ms);
}

}  // namespace vantage::room
