#include "room/udp_server.hpp"

#include <algorithm>
#include <numeric>

#include "vantage/assert.hpp"

namespace vantage::room {

std::string_view UdpServerOptions::validate() const {
    if (public_address.family == UdpFamily::None || public_address.port == 0)
        return "public_address must be set (family and port)";
    if (max_clients < 1 || max_clients > 4096) return "max_clients must be in [1, 4096]";
    if (max_pending < 1 || max_pending > 4096) return "max_pending must be in [1, 4096]";
    if (max_tokens < 1 || max_tokens > 65536) return "max_tokens must be in [1, 65536]";
    if (keep_alive_ms < 10 || keep_alive_ms > 10000) return "keep_alive_ms must be in [10, 10000]";
    if (disconnect_packets < 1 || disconnect_packets > 10) return "disconnect_packets must be in [1, 10]";
    return {};
}

namespace {
// The options, checked before any member is sized from them.
const UdpServerOptions& checked(const UdpServerOptions& options) {
    VANTAGE_ASSERT_VALID(options, "UdpServer: invalid options");
    return options;
}
}  // namespace

UdpServer::UdpServer(const UdpServerOptions& options, const UdpKey& token_key)
    : options_(checked(options)), token_key_(token_key), challenge_key_(make_udp_key()), slots_(options.max_clients) {}

UdpError UdpServer::refuse(UdpError error) {
    ++refused_[static_cast<std::size_t>(error)];
    return error;
}

std::uint64_t UdpServer::refused_total() const {
    return std::accumulate(refused_.begin(), refused_.end(), std::uint64_t{0});
}

UdpError UdpServer::receive(const UdpAddress& from, std::span<const std::uint8_t> bytes, std::uint64_t now_ms) {
    if (bytes.empty()) return refuse(UdpError::WrongSize);
    if (bytes[0] == static_cast<std::uint8_t>(UdpPacketType::Request)) return receive_request(from, bytes, now_ms);
    UdpPacketHeader header;
    if (const UdpError error = read_udp_header(bytes, header); error != UdpError::Ok) return refuse(error);
    switch (header.type) {
        case UdpPacketType::Response:
            return receive_response(from, bytes, header, now_ms);
        case UdpPacketType::KeepAlive:
        case UdpPacketType::Payload:
        case UdpPacketType::Disconnect:
            return receive_connected(from, bytes, header, now_ms);
        default:
            return refuse(UdpError::WrongType);  // a server sends challenges and denials, never reads them
    }
}

UdpError UdpServer::receive_request(const UdpAddress& from, std::span<const std::uint8_t> bytes, std::uint64_t now_ms) {
    // Cheapest checks first: a flood of junk costs a size compare each.
    UdpConnectRequest request;
    if (const UdpError error = decode_udp_request(bytes, request); error != UdpError::Ok) return refuse(error);
    if (request.protocol_id != options_.protocol_id) return refuse(UdpError::WrongProtocol);
    if (request.expire_ms <= now_ms) return refuse(UdpError::Expired);
    UdpTokenPrivate secret;
    if (const UdpError error =
            open_udp_token(request.protocol_id, request.expire_ms, request.nonce, request.sealed, token_key_, secret);
        error != UdpError::Ok)
        return refuse(error);
    if (secret.server_address != options_.public_address) return refuse(UdpError::WrongServer);
    if (slot_at(from, nullptr) != nullptr || client_connected(secret.client_id))
        return refuse(UdpError::AlreadyConnected);

    std::array<std::uint8_t, kUdpMacBytes> mac;
    std::copy(request.sealed.end() - kUdpMacBytes, request.sealed.end(), mac.begin());
    // Forget what has expired: those tokens are refused as Expired from here on.
    std::erase_if(tokens_, [now_ms](const TokenRecord& r) { return r.expire_ms <= now_ms; });
    auto found = std::find_if(tokens_.begin(), tokens_.end(), [&](const TokenRecord& r) { return r.mac == mac; });
    if (found != tokens_.end()) {
        // The same client repeating its request (its challenge may have been lost) gets the
        // challenge again; anyone else, or a token that already connected, gets nothing.
        if (found->address != from || found->state != TokenState::Pending || found->challenge_deadline_ms <= now_ms)
            return refuse(UdpError::TokenReused);
    } else {
        if (tokens_.size() >= options_.max_tokens) return refuse(UdpError::Busy);
        const auto pending = std::count_if(tokens_.begin(), tokens_.end(), [now_ms](const TokenRecord& r) {
            return r.state == TokenState::Pending && r.challenge_deadline_ms > now_ms;
        });
        if (static_cast<std::uint64_t>(pending) >= options_.max_pending) return refuse(UdpError::Busy);
        // One challenge per address: a newer token from the same address replaces the older.
        if (TokenRecord* older = pending_at(from)) older->state = TokenState::Abandoned;
        TokenRecord record;
        record.mac = mac;
        record.address = from;
        record.expire_ms = request.expire_ms;
        record.challenge_deadline_ms = std::min(request.expire_ms, now_ms + secret.timeout_ms);
        record.secret = secret;
        tokens_.push_back(record);
        found = tokens_.end() - 1;
    }

    scratch_.clear();
    encode_udp_challenge_body(
        seal_udp_challenge({secret.client_id, secret.seat}, challenge_sequence_++, challenge_key_), scratch_);
    ByteWriter packet;
    seal_udp_packet(UdpPacketType::Challenge, found->send_sequence++, scratch_.bytes(),
                    found->secret.server_to_client_key, options_.protocol_id, packet);
    VANTAGE_ASSERT(packet.size() < bytes.size(), "UdpServer: a challenge must be smaller than its request");
    outbox_.push(from, 0, packet.bytes());
    return UdpError::Ok;
}

UdpError UdpServer::receive_response(const UdpAddress& from, std::span<const std::uint8_t> bytes,
                                     const UdpPacketHeader& header, std::uint64_t now_ms) {
    TokenRecord* record = pending_at(from);
    if (record == nullptr || record->challenge_deadline_ms <= now_ms)
        return refuse(slot_at(from, nullptr) != nullptr ? UdpError::AlreadyConnected : UdpError::UnknownAddress);
    std::size_t body_size = 0;
    if (const UdpError error =
            open_udp_packet(bytes, header, record->secret.client_to_server_key, options_.protocol_id, body_, body_size);
        error != UdpError::Ok)
        return refuse(error);
    UdpChallengeBody body;
    if (const UdpError error = decode_udp_challenge_body(std::span(body_).first(body_size), body);
        error != UdpError::Ok)
        return refuse(error);
    UdpChallengeToken challenge;
    if (const UdpError error = open_udp_challenge(body, challenge_key_, challenge); error != UdpError::Ok)
        return refuse(error);
    if (challenge.client_id != record->secret.client_id || challenge.seat != record->secret.seat)
        return refuse(UdpError::Malformed);
    if (client_connected(challenge.client_id)) return refuse(UdpError::AlreadyConnected);

    const auto free = std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.used; });
    if (free == slots_.end()) {
        ByteWriter packet;
        seal_udp_packet(UdpPacketType::Denied, record->send_sequence++, {}, record->secret.server_to_client_key,
                        options_.protocol_id, packet);
        outbox_.push(from, 0, packet.bytes());
        return refuse(UdpError::ServerFull);
    }
    record->state = TokenState::Connected;
    Slot& slot = *free;
    slot = Slot{};
    slot.used = true;
    slot.address = from;
    slot.secret = record->secret;
    slot.send_sequence = record->send_sequence;  // the key has already sealed challenges
    slot.last_receive_ms = now_ms;
    const auto index = static_cast<std::uint32_t>(free - slots_.begin());
    events_.push_back(
        {UdpServerEventKind::Connected, index, slot.secret.client_id, slot.secret.seat, UdpEndReason::None});
    send_keep_alive(index, now_ms);
    return UdpError::Ok;
}

UdpError UdpServer::receive_connected(const UdpAddress& from, std::span<const std::uint8_t> bytes,
                                      const UdpPacketHeader& header, std::uint64_t now_ms) {
    std::uint32_t index = 0;
    Slot* slot = slot_at(from, &index);
    if (slot == nullptr) return refuse(UdpError::UnknownAddress);
    if (slot->replay.already_received(header.sequence)) return refuse(UdpError::Replayed);
    std::size_t body_size = 0;
    if (const UdpError error =
            open_udp_packet(bytes, header, slot->secret.client_to_server_key, options_.protocol_id, body_, body_size);
        error != UdpError::Ok)
        return refuse(error);
    if (header.type == UdpPacketType::KeepAlive) {
        UdpKeepAliveBody keep_alive;
        if (const UdpError error = decode_udp_keep_alive_body(std::span(body_).first(body_size), keep_alive);
            error != UdpError::Ok)
            return refuse(error);
    }
    slot->replay.record(header.sequence);
    slot->last_receive_ms = now_ms;
    switch (header.type) {
        case UdpPacketType::Payload:
            slot->confirmed = true;
            received_.push(from, index, std::span(body_).first(body_size));
            break;
        case UdpPacketType::KeepAlive:
            slot->confirmed = true;
            break;
        default:
            end(index, UdpEndReason::PeerLeft);
            break;  // Disconnect
    }
    return UdpError::Ok;
}

void UdpServer::update(std::uint64_t now_ms) {
    for (std::uint32_t i = 0; i < slots_.size(); ++i) {
        Slot& slot = slots_[i];
        if (!slot.used) continue;
        VANTAGE_ASSERT(now_ms >= slot.last_receive_ms, "UdpServer::update: time ran backwards");
        if (now_ms - slot.last_receive_ms >= slot.secret.timeout_ms) {
            end(i, UdpEndReason::TimedOut);
        } else if (now_ms - slot.last_send_ms >= options_.keep_alive_ms) {
            send_keep_alive(i, now_ms);
        }
    }
    for (TokenRecord& record : tokens_)
        if (record.state == TokenState::Pending && record.challenge_deadline_ms <= now_ms)
            record.state = TokenState::Abandoned;
    std::erase_if(tokens_, [now_ms](const TokenRecord& r) { return r.expire_ms <= now_ms; });
}

bool UdpServer::send_payload(std::uint32_t client_index, std::span<const std::uint8_t> payload, std::uint64_t now_ms) {
    VANTAGE_ASSERT(client_index < slots_.size(), "UdpServer::send_payload: client_index out of range");
    VANTAGE_ASSERT(!payload.empty() && payload.size() <= kUdpMaxPayloadBytes,
                   "UdpServer::send_payload: a payload must be 1 to 1200 bytes");
    Slot& slot = slots_[client_index];
    if (!slot.used) return false;
    // Until the client shows it knows its slot, every payload follows a keep-alive saying it,
    // so a lost keep-alive does not leave the client dropping payloads.
    if (!slot.confirmed) send_keep_alive(client_index, now_ms);
    send_sealed(slot, UdpPacketType::Payload, payload, now_ms);
    return true;
}

void UdpServer::disconnect(std::uint32_t client_index, std::uint64_t now_ms) {
    VANTAGE_ASSERT(client_index < slots_.size(), "UdpServer::disconnect: client_index out of range");
    Slot& slot = slots_[client_index];
    if (!slot.used) return;
    for (std::uint32_t i = 0; i < options_.disconnect_packets; ++i)
        send_sealed(slot, UdpPacketType::Disconnect, {}, now_ms);
    end(client_index, UdpEndReason::Closed);
}

bool UdpServer::connected(std::uint32_t client_index) const {
    return client_index < slots_.size() && slots_[client_index].used;
}

std::uint32_t UdpServer::connected_count() const {
    return static_cast<std::uint32_t>(
        std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.used; }));
}

std::uint64_t UdpServer::client_id(std::uint32_t client_index) const {
    VANTAGE_ASSERT(connected(client_index), "UdpServer::client_id: slot not connected");
    return slots_[client_index].secret.client_id;
}

std::uint32_t UdpServer::seat(std::uint32_t client_index) const {
    VANTAGE_ASSERT(connected(client_index), "UdpServer::seat: slot not connected");
    return slots_[client_index].secret.seat;
}

const UdpAddress& UdpServer::address(std::uint32_t client_index) const {
    VANTAGE_ASSERT(connected(client_index), "UdpServer::address: slot not connected");
    return slots_[client_index].address;
}

void UdpServer::send_sealed(Slot& slot, UdpPacketType type, std::span<const std::uint8_t> body, std::uint64_t now_ms) {
    scratch_.clear();
    seal_udp_packet(type, slot.send_sequence++, body, slot.secret.server_to_client_key, options_.protocol_id, scratch_);
    outbox_.push(slot.address, 0, scratch_.bytes());
    slot.last_send_ms = now_ms;
}

void UdpServer::send_keep_alive(std::uint32_t index, std::uint64_t now_ms) {
    ByteWriter body;
    encode_udp_keep_alive_body({index, options_.max_clients}, body);
    send_sealed(slots_[index], UdpPacketType::KeepAlive, body.bytes(), now_ms);
}

void UdpServer::end(std::uint32_t index, UdpEndReason reason) {
    Slot& slot = slots_[index];
    events_.push_back({UdpServerEventKind::Disconnected, index, slot.secret.client_id, slot.secret.seat, reason});
    slot = Slot{};
}

UdpServer::TokenRecord* UdpServer::pending_at(const UdpAddress& address) {
    for (TokenRecord& record : tokens_)
        if (record.state == TokenState::Pending && record.address == address) return &record;
    return nullptr;
}

UdpServer::Slot* UdpServer::slot_at(const UdpAddress& address, std::uint32_t* index) {
    for (std::uint32_t i = 0; i < slots_.size(); ++i) {
        if (slots_[i].used && slots_[i].address == address) {
            if (index != nullptr) *index = i;
            return &slots_[i];
        }
    }
    return nullptr;
}

bool UdpServer::client_connected(std::uint64_t client_id) const {
    return std::any_of(slots_.begin(), slots_.end(),
                       [client_id](const Slot& s) { return s.used && s.secret.client_id == client_id; });
}

}  // namespace vantage::room
