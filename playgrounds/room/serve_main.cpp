// vantage_serve: a room. A room's world (a playground whose line in common/playground_list.hpp
// names a room: the horde, the black holes) runs natively at its fixed tick and is
// served with the page from one process: HTTP for the web build's files, a WebSocket at /ws
// for players (browsers, the desktop app, bots), and a UDP port (the HTTP port + 1 unless
// told) that native clients and bots move their seat's frames onto (udp.md). Ctrl+C stops it
// cleanly.
//
//   vantage_serve [ROOM] [--port N] [--seats N] [--set 'k=v&...'] [--web DIR] [--lan]
//                        [--bind ADDR] [--presets DIR] [--udp-port N | --no-udp]
//                        [--udp-public HOST:PORT] [--rtc-peers N] [--rtc-ports LO-HI]
//
// It binds 127.0.0.1 (loopback only) unless told otherwise: --lan binds every interface
// (IPv4 and IPv6) and prints each LAN URL with a QR code of the first; --bind ADDR binds one
// address. The teacher token (printed, random per run) opens the teacher console.
// Browsers' DataChannels (webrtc_door.hpp): up to --rtc-peers at once (default 64; 0: none),
// ICE on the addresses the room serves (loopback, and the LAN ones with --lan), UDP ports in
// --rtc-ports when given. Without GStreamer's webrtcbin the room says so and plays on.
// Bad flags or settings: a message and exit status 2.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/catalog.hpp"
#include "common/host.hpp"
#include "common/playground_list.hpp"
#include "common/preset.hpp"
#include "room/blackhole_room.hpp"
#include "room/horde_room.hpp"
#include "room/lan.hpp"
#include "room/room_server.hpp"
#include "room/udp_room.hpp"
#include "room/webrtc_door.hpp"

using namespace vantage;

namespace {

int usage(const std::string& error) {
    std::fprintf(stderr, "vantage serve: %s\n", error.c_str());
    std::fprintf(stderr,
                 "usage: vantage serve [%s] [--port N] [--seats N] [--set 'k=v&...'] [--web DIR] [--lan] "
                 "[--bind ADDR] [--udp-port N | --no-udp] [--udp-public HOST:PORT] "
                 "[--rtc-peers N] [--rtc-ports LO-HI]\n",
                 play::room_names("|").c_str());
    return 2;
}

bool parse_int(const char* text, long lo, long hi, long& out) {
    double v = 0;
    if (!text || !play::parse_value(text, v) || v != static_cast<double>(static_cast<long>(v))) return false;
    out = static_cast<long>(v);
    return out >= lo && out <= hi;
}

// What the summary line says about the world.
std::string world_summary(const room::HordeRoomOptions& o) {
    return std::to_string(o.settings.enemies) + " enemies";
}
std::string world_summary(const room::BlackholeRoomOptions& o) {
    return std::to_string(o.settings.holes) + " holes, " + std::to_string(o.settings.pellets) + " pellets, " +
           std::string(play::lane_name(o.strategy)) + " field";
}

struct ServeArgs {
    room::RoomServerOptions net;
    int seats = 0;  // 0: the game's default
    std::string settings;
    std::string presets_dir = VANTAGE_PRESETS_DIR;
    bool lan = false;
    room::WebRtcOptions rtc;
    long udp_port = -1;      // -1: the HTTP port + 1 (0 when that is 0); -2: no UDP
    std::string udp_public;  // HOST:PORT tokens name instead (a relay in front of the room), or empty
};

// The UDP door's addresses: IPv4 only (the bind address, every interface for --lan), and what
// tokens name: the first LAN address, else the bound address, else loopback.
std::string udp_options(const ServeArgs& args, const std::vector<std::string>& addresses, std::uint16_t port,
                        room::UdpRoomOptions& out) {
    const bool any = args.net.bind == "::" || args.net.bind == "0.0.0.0";
    const std::optional<room::UdpAddress> bind = room::parse_udp_v4(any ? "0.0.0.0" : args.net.bind, port);
    if (!bind) return "udp needs an IPv4 --bind address (got " + args.net.bind + "): use --no-udp";
    out.bind = *bind;
    std::optional<room::UdpAddress> reach;
    for (const std::string& a : addresses) {
        if ((reach = room::parse_udp_v4(a, port))) break;
    }
    if (!reach) reach = room::parse_udp_v4(any ? "127.0.0.1" : args.net.bind, port);
    out.public_address = *reach;
    if (!args.udp_public.empty()) {
        const std::size_t colon = args.udp_public.rfind(':');
        long p = 0;
        if (colon == std::string::npos || !parse_int(args.udp_public.c_str() + colon + 1, 1, 65535, p))
            return "--udp-public needs HOST:PORT (got " + args.udp_public + ")";
        const std::optional<room::UdpAddress> relay =
            room::parse_udp_v4(args.udp_public.substr(0, colon), static_cast<std::uint16_t>(p));
        if (!relay) return "--udp-public needs an IPv4 address (got " + args.udp_public + ")";
        out.public_address = *relay;
    }
    return {};
}

template <class Room, class Options>
int serve(const std::string& playground, ServeArgs args) {
    Options game;
    room::RoomServerOptions& net = args.net;
    if (args.seats > 0) game.seats = args.seats;
    const std::vector<std::string> errors = room::apply_room_settings(game, args.settings);
    for (const std::string& e : errors) std::fprintf(stderr, "vantage serve: %s\n", e.c_str());
    if (!errors.empty()) return 2;
    if (std::string e = game.validate(); !e.empty()) return usage(e);
    net.tick_hz = game.tick_hz;
    net.max_message_bytes = 16 * 1024;               // a truth query of kMaxTruthSample keys fits
    net.max_connections = game.connection_budget();  // every kind's quota; a full kind answers itself

    game.teacher_token = room::random_token();
    const std::string preset_file = playground + "-room";
    const play::PresetFile presets = play::load_presets(args.presets_dir, preset_file);
    for (const std::string& e : presets.errors)
        std::fprintf(stderr, "vantage serve: %s.ini %s\n", preset_file.c_str(), e.c_str());
    game.presets = presets.presets;
    const std::vector<std::string> addresses = args.lan ? room::lan_addresses() : std::vector<std::string>{};
    net.hosts = addresses;  // the LAN addresses it prints (loopback names are always answered)
    const std::string url_host =
        !addresses.empty() ? addresses[0] : (net.bind == "::" || net.bind == "0.0.0.0" ? "127.0.0.1" : net.bind);

    Room world(game);
    room::RoomServer server(net, world);
    world.attach(server);
    if (std::string e = server.listen(); !e.empty()) {
        std::fprintf(stderr, "vantage serve: %s\n", e.c_str());
        return 1;
    }
    // ICE gathers only where the room is served: loopback, the bound address, the LAN ones.
    args.rtc.addresses = {"127.0.0.1"};
    if (net.bind != "127.0.0.1" && net.bind != "::" && net.bind != "0.0.0.0" && net.bind != "::1")
        args.rtc.addresses.push_back(net.bind);
    for (const std::string& a : addresses) args.rtc.addresses.push_back(a);
    room::WebRtcDoor rtc(args.rtc, world, server);  // after the world and the server: goes first
    std::string rtc_line;
    if (args.rtc.max_peers == 0) {
        rtc_line = "off (--rtc-peers 0): pages play over the WebSocket";
    } else if (std::string e = rtc.start(); !e.empty()) {
        rtc_line = "off (" + e + "): pages play over the WebSocket";
    } else {
        world.set_rtc_door(&rtc);
        rtc_line = "up to " + std::to_string(args.rtc.max_peers) + " pages, UDP " +
                   (args.rtc.min_port ? std::to_string(args.rtc.min_port) + "-" + std::to_string(args.rtc.max_port)
                                      : std::string("any port"));
        for (const std::string& a : args.rtc.addresses) rtc_line += (a == args.rtc.addresses[0] ? " on " : ", ") + a;
    }
    const unsigned port = server.port();
    std::optional<room::UdpRoom> udp;
    if (args.udp_port != -2) {
        const long udp_port = args.udp_port >= 0 ? args.udp_port : (args.net.port == 0 ? 0 : port + 1);
        room::UdpRoomOptions o;
        o.max_clients = static_cast<std::uint32_t>(game.seats);
        if (std::string e = udp_options(args, addresses, static_cast<std::uint16_t>(udp_port), o); !e.empty())
            return usage(e);
        udp.emplace(world, o);
        if (std::string e = udp->open(); !e.empty()) {
            std::fprintf(stderr, "vantage serve: %s (choose another with --udp-port N, or --no-udp)\n", e.c_str());
            return 1;
        }
        world.set_udp_door(&*udp);
    }
    const std::string host = net.bind == "::" || net.bind == "0.0.0.0" ? "127.0.0.1" : net.bind;
    const std::string path = "/#" + playground + "/join";
    const std::string join_url = "http://" + url_host + ":" + std::to_string(port) + path;
    std::vector<std::string> class_urls;
    for (const std::string& a : addresses) class_urls.push_back("http://" + a + ":" + std::to_string(port) + path);
    if (class_urls.empty()) class_urls.push_back(join_url);
    world.set_class_urls(class_urls, room::qr_modules(class_urls[0]));
    std::printf("Vantage room: http://%s:%u%s\n", host.c_str(), port, path.c_str());
    if (args.lan) {
        if (addresses.empty()) std::printf("  --lan: this machine has no LAN address (only loopback is reachable)\n");
        for (const std::string& a : addresses)
            std::printf("Vantage room on the LAN: http://%s:%u%s\n", a.c_str(), port, path.c_str());
        if (!addresses.empty()) std::printf("%s", room::qr_terminal(class_urls[0]).c_str());
    }
    std::printf(
        "Teacher console: http://%s:%u/#%s/teach&token=%s  (keep it to yourself; students follow with "
        "#%s/follow)\n",
        url_host.c_str(), port, playground.c_str(), game.teacher_token.c_str(), playground.c_str());
    std::printf("  %d seats, %s, tick %d Hz; settings: %s\n", game.seats, world_summary(game).c_str(), game.tick_hz,
                game.describe().c_str());
    std::printf("  DataChannels: %s\n", rtc_line.c_str());
    if (udp)
        std::printf("  udp: %s for native clients and bots (tokens name %s)\n",
                    udp->local_address().to_string().c_str(), udp->public_address().to_string().c_str());
    else
        std::printf("  udp: off (every seat plays over the websocket)\n");
    std::printf("  desktop: ./vantage play --desktop --join ws://%s:%u/ws%s    stop: Ctrl+C\n", host.c_str(), port,
                playground == play::kDefaultRoom ? "" : (" " + playground).c_str());
    std::fflush(stdout);
    server.set_handle_signals(true);
    server.run();
    world.set_rtc_door(nullptr);
    world.set_udp_door(nullptr);
    const room::ServerStats st = server.stats();
    std::printf("room closed after %llu ticks; %llu connections served, %llu refused\n",
                static_cast<unsigned long long>(st.ticks), static_cast<unsigned long long>(st.accepted),
                static_cast<unsigned long long>(st.refused));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // The room: the first argument unless it is a flag, else the default room.
    const bool named = argc >= 2 && argv[1][0] != '-';
    const std::string playground = named ? argv[1] : play::kDefaultRoom;
    if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        usage("help");
        return 0;
    }
    if (!play::is_room(playground))
        return usage("unknown room '" + playground + "' (rooms: " + play::room_names() + ")");

    ServeArgs args;
    for (int i = named ? 2 : 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--lan") {
            args.lan = true;
            args.net.bind = "::";
            continue;
        }
        if (arg == "--no-udp") {
            args.udp_port = -2;
            continue;
        }
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        long n = 0;
        if (arg == "--port") {
            if (!parse_int(value, 0, 65535, n)) return usage("--port needs a number from 0 to 65535");
            args.net.port = static_cast<std::uint16_t>(n);
        } else if (arg == "--seats") {
            if (!parse_int(value, 1, 128, n)) return usage("--seats needs a number from 1 to 128");
            args.seats = static_cast<int>(n);
        } else if (arg == "--set") {
            if (!value) return usage("--set needs 'key=value&key=value'");
            args.settings = value;
        } else if (arg == "--web") {
            if (!value) return usage("--web needs a directory");
            args.net.web_root = value;
        } else if (arg == "--presets") {
            if (!value) return usage("--presets needs a directory");
            args.presets_dir = value;
        } else if (arg == "--rtc-peers") {
            if (!parse_int(value, 0, 1024, n)) return usage("--rtc-peers needs a number from 0 to 1024");
            args.rtc.max_peers = static_cast<int>(n);
        } else if (arg == "--rtc-ports") {
            const std::string v = value ? value : "";
            const std::size_t dash = v.find('-');
            long lo = 0, hi = 0;
            if (dash == std::string::npos || !parse_int(v.substr(0, dash).c_str(), 1, 65535, lo) ||
                !parse_int(v.substr(dash + 1).c_str(), lo, 65535, hi))
                return usage("--rtc-ports needs a range LO-HI of UDP ports, 1 <= LO <= HI <= 65535");
            args.rtc.min_port = static_cast<std::uint16_t>(lo);
            args.rtc.max_port = static_cast<std::uint16_t>(hi);
        } else if (arg == "--udp-port") {
            if (!parse_int(value, 0, 65535, n)) return usage("--udp-port needs a number from 0 to 65535");
            args.udp_port = n;
        } else if (arg == "--udp-public") {
            if (!value) return usage("--udp-public needs HOST:PORT (a vantage_relay in front of the room)");
            args.udp_public = value;
        } else if (arg == "--bind") {
            if (!value) return usage("--bind needs an address");
            args.net.bind = value;
        } else {
            return usage("unknown argument '" + arg + "'");
        }
        ++i;
    }
    // Each room of the list, as its own server type (room::<X>Room with its options).
#define VANTAGE_SERVE_ROOM_OF(room_name, Remote, Room) \
    if (playground == room_name)                       \
        return serve<room::Room, std::decay_t<decltype(std::declval<room::Room>().options())>>(playground, args);
#define VANTAGE_SERVE_ROOM(Sim, name, report, largest, ...) __VA_OPT__(VANTAGE_SERVE_ROOM_OF(name, __VA_ARGS__))
    VANTAGE_PLAYGROUNDS(VANTAGE_SERVE_ROOM)
#undef VANTAGE_SERVE_ROOM
#undef VANTAGE_SERVE_ROOM_OF
    return usage("room '" + playground + "' has no server");
}
