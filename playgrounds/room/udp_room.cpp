#include "room/udp_room.hpp"

#include <algorithm>
#include <charconv>

namespace vantage::room {

static_assert(kUdpTokenBytes == play::kUdpGrantTokenBytes, "the room wire carries the token whole");

std::string UdpRoomOptions::validate() const {
    if (bind.family == UdpFamily::None) return "udp: no address to bind";
    if (max_clients < 1 || max_clients > 4096) return "udp: max_clients must be from 1 to 4096";
    if (token_lifetime_ms < 1000 || token_lifetime_ms > 3600000)
        return "udp: token_lifetime_ms must be from 1000 to 3600000";
    if (timeout_ms < kUdpMinTimeoutMs || timeout_ms > kUdpMaxTimeoutMs)
        return "udp: timeout_ms must be from 100 to 60000";
    return {};
}

std::optional<UdpAddress> parse_udp_v4(std::string_view dotted, std::uint16_t port) {
    std::uint8_t b[4] = {};
    const char* p = dotted.data();
    const char* end = dotted.data() + dotted.size();
    for (int i = 0; i < 4; ++i) {
        unsigned v = 0;
        const auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc() || next == p || v > 255) return std::nullopt;
        b[i] = static_cast<std::uint8_t>(v);
        p = next;
        if (i < 3) {
            if (p == end || *p != '.') return std::nullopt;
            ++p;
        }
    }
    if (p != end) return std::nullopt;
    return UdpAddress::v4(b[0], b[1], b[2], b[3], port);
}

// One seat's UDP path: frames sealed to its connection. Destroying it (the seat left, the
// teacher moved it, another path replaced it) ends the connection.
class UdpRoom::Path final : public DatagramPath {
public:
    Path(std::weak_ptr<UdpRoom*> door, std::uint32_t index, std::uint64_t client_id)
        : door_(std::move(door)), index_(index), client_id_(client_id) {}
    ~Path() override {
        if (const auto door = door_.lock()) (*door)->drop(index_, client_id_);
    }
    SeatTransport kind() const override { return SeatTransport::Udp; }
    bool send(std::span<const std::uint8_t> bytes) override {
        const auto door = door_.lock();
        return door && (*door)->send(index_, client_id_, bytes);
    }

private:
    std::weak_ptr<UdpRoom*> door_;
    std::uint32_t index_;
    std::uint64_t client_id_;
};

UdpRoom::UdpRoom(GameRoom& room, UdpRoomOptions options)
    : room_(room), options_(std::move(options)), self_(std::make_shared<UdpRoom*>(this)) {}

UdpRoom::~UdpRoom() = default;

std::string UdpRoom::open() {
    if (std::string e = options_.validate(); !e.empty()) return e;
    if (std::string e = socket_.open(options_.bind); !e.empty()) return e;
    public_ = options_.public_address;
    if (public_.family == UdpFamily::None) public_ = socket_.local_address();
    if (public_.port == 0) public_.port = socket_.local_address().port;
    key_ = make_udp_key();
    server_.emplace(UdpServerOptions{.public_address = public_,
                                     .max_clients = options_.max_clients,
                                     .max_pending = std::min<std::uint32_t>(4096, options_.max_clients),
                                     .max_tokens = std::min<std::uint32_t>(65536, options_.max_clients * 16)},
                    key_);
    slot_connection_.assign(options_.max_clients, 0);
    slot_client_.assign(options_.max_clients, 0);
    return {};
}

bool UdpRoom::grant(ConnectionId id, std::uint32_t seat, std::vector<std::uint8_t>& token, std::string& why) {
    if (!server_) {
        why = "this room's UDP is off";
        return false;
    }
    std::erase_if(grants_, [&](const Grant& g) { return g.expire_ms <= now_ms_; });
    const auto outstanding =
        std::count_if(grants_.begin(), grants_.end(), [&](const Grant& g) { return g.connection == id; });
    if (server_->connected_count() >= options_.max_clients) {
        ++stats_.refused_grants;
        why = "the room's UDP is full (" + std::to_string(options_.max_clients) + " connections)";
        return false;
    }
    if (outstanding >= 4) {
        ++stats_.refused_grants;
        why = "four UDP tokens are already waiting for this seat";
        return false;
    }
    const std::uint64_t client_id = ++next_client_id_;
    const UdpTokenOptions t{.lifetime_ms = options_.token_lifetime_ms, .timeout_ms = options_.timeout_ms};
    const UdpConnectToken issued = issue_udp_token(t, client_id, seat, public_, now_ms_, key_);
    writer_.clear();
    encode_udp_token(issued, writer_);
    token.assign(writer_.bytes().begin(), writer_.bytes().end());
    grants_.push_back({client_id, id, issued.expire_ms});
    ++stats_.grants;
    return true;
}

void UdpRoom::pump(double now_ms) {
    if (!server_) return;
    now_ms_ = std::max(now_ms_, static_cast<std::uint64_t>(std::max(0.0, now_ms)));
    socket_.receive([&](const UdpAddress& from, std::span<const std::uint8_t> bytes) {
        if (server_->receive(from, bytes, now_ms_) != UdpError::Ok) ++stats_.refused;
    });
    server_->update(now_ms_);
    // Connections made and ended. Attaching may end another path (whose drop() queues more
    // events), so the batch is copied out first.
    const std::vector<UdpServerEvent> events(server_->events().begin(), server_->events().end());
    server_->clear_events();
    for (const UdpServerEvent& e : events) {
        if (e.kind == UdpServerEventKind::Connected) {
            const auto g = std::find_if(grants_.begin(), grants_.end(),
                                        [&](const Grant& x) { return x.client_id == e.client_id; });
            if (g == grants_.end()) {  // a token this door did not grant, or one long expired
                server_->disconnect(e.client_index, now_ms_);
                continue;
            }
            const ConnectionId connection = g->connection;
            grants_.erase(g);
            ++stats_.connects;
            slot_connection_[e.client_index] = connection;
            slot_client_[e.client_index] = e.client_id;
            room_.attach_path(connection, std::make_unique<Path>(self_, e.client_index, e.client_id));
        } else {
            ++stats_.disconnects;
            const ConnectionId connection = slot_connection_[e.client_index];
            slot_connection_[e.client_index] = 0;
            slot_client_[e.client_index] = 0;
            if (connection != 0)
                room_.detach_path(connection,
                                  std::string("udp ") + to_string(e.reason) + ": playing over the websocket");
        }
    }
    // What the connected clients sent: acknowledgements and inputs for their seats.
    const UdpDatagramQueue& in = server_->received();
    for (std::size_t i = 0; i < in.size(); ++i) {
        const ConnectionId connection = slot_connection_[in.entry(i).slot];
        if (connection != 0) room_.on_datagram(connection, in.bytes(i));
    }
    server_->clear_received();
    socket_.send_all(server_->outbox());
}

bool UdpRoom::send(std::uint32_t index, std::uint64_t client_id, std::span<const std::uint8_t> bytes) {
    if (!server_ || index >= slot_client_.size() || slot_client_[index] != client_id) return false;
    if (!server_->send_payload(index, bytes, now_ms_)) return false;
    socket_.send_all(server_->outbox());
    return true;
}

void UdpRoom::drop(std::uint32_t index, std::uint64_t client_id) {
    if (!server_ || index >= slot_client_.size() || slot_client_[index] != client_id) return;
    slot_connection_[index] = 0;  // its Disconnected event then detaches nothing
    slot_client_[index] = 0;
    server_->disconnect(index, now_ms_);
    socket_.send_all(server_->outbox());
}

UdpRoomStats UdpRoom::stats() const {
    UdpRoomStats s = stats_;
    if (server_) {
        s.connected = server_->connected_count();
        s.refused = server_->refused_total();
    }
    s.datagrams_in = socket_.datagrams_received();
    s.datagrams_out = socket_.datagrams_sent();
    s.bytes_in = socket_.bytes_received();
    s.bytes_out = socket_.bytes_sent();
    s.send_failures = socket_.send_failures();
    return s;
}

}  // namespace vantage::room
