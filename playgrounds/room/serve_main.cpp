// vantage_serve: a room. The horde world runs natively at its fixed tick and is served with
// the page from one process: HTTP for the web build's files, a WebSocket at /ws for players
// (browsers, the desktop app, bots). Ctrl+C stops it cleanly.
//
//   vantage_serve horde [--port N] [--seats N] [--set 'k=v&...'] [--web DIR] [--lan] [--bind ADDR]
//                       [--presets DIR]
//
// It binds 127.0.0.1 (loopback only) unless told otherwise: --lan binds every interface
// (IPv4 and IPv6) and prints each LAN URL with a QR code of the first; --bind ADDR binds one
// address. The teacher token (printed, random per run) opens the teacher console.
// Bad flags or settings: a message and exit status 2.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/host.hpp"
#include "common/preset.hpp"
#include "room/horde_room.hpp"
#include "room/lan.hpp"
#include "room/room_server.hpp"

using namespace vantage;

namespace {

int usage(const std::string& error) {
    std::fprintf(stderr, "vantage serve: %s\n", error.c_str());
    std::fprintf(
        stderr,
        "usage: vantage serve horde [--port N] [--seats N] [--set 'k=v&...'] [--web DIR] [--lan] [--bind ADDR]\n");
    return 2;
}

bool parse_int(const char* text, long lo, long hi, long& out) {
    double v = 0;
    if (!text || !play::parse_value(text, v) || v != static_cast<double>(static_cast<long>(v))) return false;
    out = static_cast<long>(v);
    return out >= lo && out <= hi;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage("missing playground (horde)");
    const std::string playground = argv[1];
    if (playground == "--help" || playground == "-h") {
        usage("help");
        return 0;
    }
    if (playground == "blackhole") return usage("blackhole rooms are not built yet: serve horde");
    if (playground != "horde") return usage("unknown playground '" + playground + "' (rooms: horde)");

    room::RoomServerOptions net;
    room::HordeRoomOptions game;
    std::string settings;
    std::string presets_dir = VANTAGE_PRESETS_DIR;
    bool lan = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--lan") {
            lan = true;
            net.bind = "::";
            continue;
        }
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        long n = 0;
        if (arg == "--port") {
            if (!parse_int(value, 0, 65535, n)) return usage("--port needs a number from 0 to 65535");
            net.port = static_cast<std::uint16_t>(n);
        } else if (arg == "--seats") {
            if (!parse_int(value, 1, 128, n)) return usage("--seats needs a number from 1 to 128");
            game.seats = static_cast<int>(n);
        } else if (arg == "--set") {
            if (!value) return usage("--set needs 'key=value&key=value'");
            settings = value;
        } else if (arg == "--web") {
            if (!value) return usage("--web needs a directory");
            net.web_root = value;
        } else if (arg == "--presets") {
            if (!value) return usage("--presets needs a directory");
            presets_dir = value;
        } else if (arg == "--bind") {
            if (!value) return usage("--bind needs an address");
            net.bind = value;
        } else {
            return usage("unknown argument '" + arg + "'");
        }
        ++i;
    }
    const std::vector<std::string> errors = room::apply_room_settings(game, settings);
    for (const std::string& e : errors) std::fprintf(stderr, "vantage serve: %s\n", e.c_str());
    if (!errors.empty()) return 2;
    if (std::string e = game.validate(); !e.empty()) return usage(e);
    net.tick_hz = game.tick_hz;
    net.max_message_bytes = 16 * 1024;                                // a truth query of kMaxTruthSample keys fits
    net.max_connections = static_cast<std::size_t>(game.seats) + 32;  // a full room still answers "full"

    game.teacher_token = room::random_token();
    const play::PresetFile presets = play::load_presets(presets_dir, "horde-room");
    for (const std::string& e : presets.errors) std::fprintf(stderr, "vantage serve: horde-room.ini %s\n", e.c_str());
    game.presets = presets.presets;
    const std::vector<std::string> addresses = lan ? room::lan_addresses() : std::vector<std::string>{};
    const std::string url_host =
        !addresses.empty() ? addresses[0] : (net.bind == "::" || net.bind == "0.0.0.0" ? "127.0.0.1" : net.bind);

    room::HordeRoom horde(game);
    room::RoomServer server(net, horde);
    horde.attach(server);
    if (std::string e = server.listen(); !e.empty()) {
        std::fprintf(stderr, "vantage serve: %s\n", e.c_str());
        return 1;
    }
    const unsigned port = server.port();
    const std::string host = net.bind == "::" || net.bind == "0.0.0.0" ? "127.0.0.1" : net.bind;
    const std::string join_url = "http://" + url_host + ":" + std::to_string(port) + "/#horde/join";
    std::vector<std::string> class_urls;
    for (const std::string& a : addresses)
        class_urls.push_back("http://" + a + ":" + std::to_string(port) + "/#horde/join");
    if (class_urls.empty()) class_urls.push_back(join_url);
    horde.set_class_urls(class_urls, room::qr_modules(class_urls[0]));
    std::printf("Vantage room: http://%s:%u/#horde/join\n", host.c_str(), port);
    if (lan) {
        if (addresses.empty()) std::printf("  --lan: this machine has no LAN address (only loopback is reachable)\n");
        for (const std::string& a : addresses)
            std::printf("Vantage room on the LAN: http://%s:%u/#horde/join\n", a.c_str(), port);
        if (!addresses.empty()) std::printf("%s", room::qr_terminal(class_urls[0]).c_str());
    }
    std::printf(
        "Teacher console: http://%s:%u/#horde/teach&token=%s  (keep it to yourself; students follow with "
        "#horde/follow)\n",
        url_host.c_str(), port, game.teacher_token.c_str());
    std::printf("  %d seats, %d enemies, tick %d Hz; settings: %s\n", game.seats, game.settings.enemies, game.tick_hz,
                game.describe().c_str());
    std::printf("  desktop: ./vantage play --desktop --join ws://%s:%u/ws    stop: Ctrl+C\n", host.c_str(),
                static_cast<unsigned>(server.port()));
    std::fflush(stdout);
    server.set_handle_signals(true);
    server.run();
    const room::ServerStats s = server.stats();
    std::printf("room closed after %llu ticks; %llu connections served, %llu refused\n",
                static_cast<unsigned long long>(s.ticks), static_cast<unsigned long long>(s.accepted),
                static_cast<unsigned long long>(s.refused));
    return 0;
}
