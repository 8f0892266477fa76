// What a classroom needs to find a room: the machine's LAN addresses, and the join URL as a
// QR code for a terminal (libqrencode). Native only (room/).
#pragma once

#include <string>
#include <vector>

namespace vantage::room {

// IPv4 addresses of interfaces that are up, not loopback and not link-local (169.254/16),
// in interface order. Empty when the machine has none (then only loopback is reachable).
std::vector<std::string> lan_addresses();

// The text as a QR code drawn with half-block characters (two module rows per line), black on
// white with a quiet zone of 2, ready to print to a terminal. Empty if encoding failed.
std::string qr_terminal(const std::string& text);

// The QR modules, row by row ('1' dark, '0' light), without the quiet zone: what the teacher
// page draws. Empty if encoding failed.
std::vector<std::string> qr_modules(const std::string& text);

// A random token of `bytes` bytes as hex, from the OS's entropy (getrandom): the teacher's key.
std::string random_token(std::size_t bytes = 12);

}  // namespace vantage::room
