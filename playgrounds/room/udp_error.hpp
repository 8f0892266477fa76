// UdpError: why the datagram layer refused a token or a packet. Every decoder and every state
// machine step that can refuse returns one, and the server and client count refusals per kind
// (an array indexed by the enum), so a test or a readout can say "3 replayed, 1 forged" and a
// flood of one kind is visible. Refused input never gets a reply (a full server's Denied is
// the one answer to a valid request, and it is smaller than the request).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vantage::room {

enum class UdpError : std::uint8_t {
    Ok,
    WrongSize,         // shorter or longer than its kind allows (a token, a request, a packet body)
    UnknownType,       // a packet type number no packet has
    WrongType,         // a packet this side, or this state, does not accept (a client's challenge)
    BadHeader,         // a sequence length outside [1, 8] or not the shortest for its value
    WrongVersion,      // not this protocol's version tag
    WrongProtocol,     // another application's protocol id
    Expired,           // a connect token past its expiry
    Forged,            // authentication failed: another key, or bytes changed in flight
    Malformed,         // authentic or clear content breaking a rule (padding, address, times)
    WrongServer,       // a token naming another server address
    TokenReused,       // a token already used from another address, or already connected once
    Replayed,          // a sequence already received, or older than the replay window
    UnknownAddress,    // an encrypted packet from an address with no connection or challenge
    AlreadyConnected,  // a request from an address or client id that is connected
    ServerFull,        // no free slot (the request is answered with a small Denied)
    Busy,              // the table of challenges or of used tokens is full
};

inline constexpr std::size_t kUdpErrorCount = 17;

constexpr const char* to_string(UdpError error) {
    switch (error) {
        case UdpError::Ok:
            return "ok";
        case UdpError::WrongSize:
            return "wrong size";
        case UdpError::UnknownType:
            return "unknown type";
        case UdpError::WrongType:
            return "wrong type";
        case UdpError::BadHeader:
            return "bad header";
        case UdpError::WrongVersion:
            return "wrong version";
        case UdpError::WrongProtocol:
            return "wrong protocol";
        case UdpError::Expired:
            return "expired";
        case UdpError::Forged:
            return "forged";
        case UdpError::Malformed:
            return "malformed";
        case UdpError::WrongServer:
            return "wrong server";
        case UdpError::TokenReused:
            return "token reused";
        case UdpError::Replayed:
            return "replayed";
        case UdpError::UnknownAddress:
            return "unknown address";
        case UdpError::AlreadyConnected:
            return "already connected";
        case UdpError::ServerFull:
            return "server full";
        case UdpError::Busy:
            return "busy";
    }
    return "unknown udp error";
}

}  // namespace vantage::room
