#include "room/udp_socket.hpp"

#include <utility>  // before Boost: g++ 12 in C++20 fails in asio/awaitable.hpp without it

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>

#include <poll.h>

#include <array>

namespace vantage::room {
namespace {

namespace asio = boost::asio;
using boost::asio::ip::udp;

udp::endpoint to_endpoint(const UdpAddress& address) {
    if (address.family == UdpFamily::V4) {
        const asio::ip::address_v4::bytes_type bytes{address.bytes[0], address.bytes[1], address.bytes[2],
                                                     address.bytes[3]};
        return {asio::ip::address_v4(bytes), address.port};
    }
    asio::ip::address_v6::bytes_type bytes;
    std::copy(address.bytes.begin(), address.bytes.end(), bytes.begin());
    return {asio::ip::address_v6(bytes), address.port};
}

UdpAddress to_address(const udp::endpoint& endpoint) {
    const asio::ip::address ip = endpoint.address();
    if (ip.is_v4()) {
        const auto b = ip.to_v4().to_bytes();
        return UdpAddress::v4(b[0], b[1], b[2], b[3], endpoint.port());
    }
    const auto b = ip.to_v6().to_bytes();
    std::array<std::uint8_t, 16> bytes;
    std::copy(b.begin(), b.end(), bytes.begin());
    return UdpAddress::v6(bytes, endpoint.port());
}

}  // namespace

struct UdpSocket::Impl {
    asio::io_context io;
    udp::socket socket{io};
    std::array<std::uint8_t, 2048> buffer{};
};

UdpSocket::UdpSocket() : impl_(std::make_unique<Impl>()) {}
UdpSocket::~UdpSocket() = default;

std::string UdpSocket::open(const UdpAddress& bind) {
    if (bind.family == UdpFamily::None) return "no address to bind";
    boost::system::error_code ec;
    const udp::endpoint endpoint = to_endpoint(bind);
    impl_->socket.open(endpoint.protocol(), ec);
    if (!ec) impl_->socket.non_blocking(true, ec);
    if (!ec) impl_->socket.bind(endpoint, ec);
    if (ec) {
        impl_->socket.close(ec);
        return "cannot bind udp " + bind.to_string() + ": " + ec.message();
    }
    return {};
}

bool UdpSocket::is_open() const {
    return impl_->socket.is_open();
}

UdpAddress UdpSocket::local_address() const {
    boost::system::error_code ec;
    const udp::endpoint endpoint = impl_->socket.local_endpoint(ec);
    return ec ? UdpAddress{} : to_address(endpoint);
}

bool UdpSocket::wait(int timeout_ms) {
    pollfd fd{impl_->socket.native_handle(), POLLIN, 0};
    return ::poll(&fd, 1, timeout_ms) > 0 && (fd.revents & POLLIN) != 0;
}

std::size_t UdpSocket::receive(const std::function<void(const UdpAddress&, std::span<const std::uint8_t>)>& fn) {
    std::size_t count = 0;
    for (;;) {
        udp::endpoint from;
        boost::system::error_code ec;
        const std::size_t n = impl_->socket.receive_from(asio::buffer(impl_->buffer), from, 0, ec);
        if (ec == asio::error::would_block) break;
        // An earlier send's ICMP "port unreachable" surfaces on a later read: no datagram, read on.
        if (ec == asio::error::connection_refused || ec == asio::error::connection_reset) continue;
        if (ec) break;
        ++count;
        ++datagrams_received_;
        bytes_received_ += n;
        fn(to_address(from), std::span<const std::uint8_t>(impl_->buffer.data(), n));
    }
    return count;
}

bool UdpSocket::send(const UdpAddress& to, std::span<const std::uint8_t> bytes) {
    boost::system::error_code ec;
    impl_->socket.send_to(asio::buffer(bytes.data(), bytes.size()), to_endpoint(to), 0, ec);
    if (ec) {
        ++send_failures_;
        return false;
    }
    ++datagrams_sent_;
    bytes_sent_ += bytes.size();
    return true;
}

void UdpSocket::send_all(UdpDatagramQueue& outbox) {
    for (std::size_t i = 0; i < outbox.size(); ++i) send(outbox.entry(i).peer, outbox.bytes(i));
    outbox.clear();
}

}  // namespace vantage::room
