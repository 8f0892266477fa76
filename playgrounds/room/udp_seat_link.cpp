#include "room/udp_seat_link.hpp"

#include <algorithm>
#include <cmath>

namespace vantage::room {

using play::RoomRemote;
using play::SeatTransport;

namespace {
std::uint64_t ms(double local_ms) {
    return static_cast<std::uint64_t>(std::llround(std::max(0.0, local_ms)));
}
}  // namespace

std::uint64_t UdpSeatLink::refused() const {
    std::uint64_t n = refused_;
    if (client_) {
        for (std::size_t e = 1; e < kUdpErrorCount; ++e) n += client_->refused(static_cast<UdpError>(e));
    }
    return n;
}

void UdpSeatLink::service(std::uint64_t now_ms) {
    if (!client_ || !socket_.is_open()) return;
    socket_.receive(
        [&](const UdpAddress& from, std::span<const std::uint8_t> bytes) { client_->receive(from, bytes, now_ms); });
    client_->update(now_ms);
    const UdpDatagramQueue& in = client_->received();
    for (std::size_t i = 0; i < in.size(); ++i) inbox_.emplace_back(in.bytes(i).begin(), in.bytes(i).end());
    client_->clear_received();
    socket_.send_all(client_->outbox());
}

void UdpSeatLink::send(double now_ms, std::span<const std::uint8_t> bytes) {
    if (!client_ || !client_->connected() || bytes.empty() || bytes.size() > kUdpMaxPayloadBytes) return;
    client_->send_payload(bytes, ms(now_ms));
    socket_.send_all(client_->outbox());
}

bool UdpSeatLink::poll(double now_ms, std::vector<std::uint8_t>& out) {
    if (inbox_.empty()) service(ms(now_ms));
    if (inbox_.empty()) return false;
    out = std::move(inbox_.front());
    inbox_.pop_front();
    return true;
}

void UdpSeatLink::fail(RoomRemote& remote, const std::string& why) {
    phase_ = Phase::Failed;
    if (remote.datagram() == this) remote.set_datagram(nullptr);
    inbox_.clear();
    remote.note_transport(why + ": playing over the websocket");
}

void UdpSeatLink::ask(RoomRemote& remote, play::Transport& socket, double local_ms) {
    remote.request_udp(socket, local_ms);
    phase_ = Phase::Asked;
    started_ms_ = local_ms;
}

void UdpSeatLink::stop(RoomRemote& remote, double local_ms) {
    if (client_ && client_->connected()) {
        client_->disconnect(ms(local_ms));
        socket_.send_all(client_->outbox());
    }
    client_.reset();
    if (remote.datagram() == this) remote.set_datagram(nullptr);
    inbox_.clear();
    phase_ = Phase::Off;
}

void UdpSeatLink::drive(RoomRemote& remote, play::Transport& socket, double local_ms) {
    if (!options_.enabled) return;
    if (remote.status() != RoomRemote::Status::Joined) {
        if (phase_ != Phase::Off && remote.status() != RoomRemote::Status::Connecting) stop(remote, local_ms);
        return;
    }
    const std::uint64_t now = ms(local_ms);
    // What the room said since the last step.
    if (remote.transport_changes() != seen_changes_) {
        seen_changes_ = remote.transport_changes();
        const SeatTransport now_on = remote.transport();
        const SeatTransport wanted = remote.wanted_transport();
        if (phase_ == Phase::Asked && now_on == SeatTransport::WebSocket && wanted == SeatTransport::WebSocket) {
            // Answered without a token: the room's sentence says why; stay on the WebSocket.
            phase_ = Phase::Failed;
        } else if (phase_ == Phase::Connected && now_on == SeatTransport::WebSocket) {
            // The room detached the path (timed out on its side, the teacher moved the seat).
            const std::string why = remote.transport_why();
            stop(remote, local_ms);
            phase_ = Phase::Failed;
            remote.note_transport(why);
        }
        if (wanted == SeatTransport::Udp && now_on != SeatTransport::Udp &&
            (phase_ == Phase::Off || phase_ == Phase::Failed)) {
            ask(remote, socket, local_ms);
            return;
        }
    }
    switch (phase_) {
        case Phase::Off:
            ask(remote, socket, local_ms);
            return;
        case Phase::Asked: {
            if (remote.take_udp_grant(token_bytes_)) {
                UdpConnectToken token;
                if (decode_udp_token(token_bytes_, token) != UdpError::Ok) {
                    fail(remote, "the room's udp token did not decode");
                    return;
                }
                if (!socket_.is_open()) {
                    const UdpAddress any = token.server_address.family == UdpFamily::V4 ? UdpAddress::v4(0, 0, 0, 0, 0)
                                                                                        : UdpAddress::v6({}, 0);
                    if (const std::string e = socket_.open(any); !e.empty()) {
                        fail(remote, e);
                        return;
                    }
                }
                client_.emplace();
                client_->connect(token, now);
                socket_.send_all(client_->outbox());
                phase_ = Phase::Connecting;
            } else if (local_ms - started_ms_ > options_.connect_timeout_ms) {
                fail(remote, "no udp token from the room within " +
                                 std::to_string(std::lround(options_.connect_timeout_ms / 1000.0)) + " s");
            }
            return;
        }
        case Phase::Connecting:
            service(now);
            if (client_->connected()) {
                phase_ = Phase::Connected;
                remote.set_datagram(this);
            } else if (static_cast<int>(client_->state()) < 0) {
                fail(remote, std::string("udp ") + to_string(client_->state()));
            } else if (local_ms - started_ms_ > options_.connect_timeout_ms) {
                client_->disconnect(now);
                fail(remote, "udp could not connect within " +
                                 std::to_string(std::lround(options_.connect_timeout_ms / 1000.0)) + " s");
            }
            return;
        case Phase::Connected:
            service(now);
            if (!client_->connected()) fail(remote, std::string("udp ") + to_string(client_->state()));
            return;
        case Phase::Failed:
            return;
    }
}

}  // namespace vantage::room
