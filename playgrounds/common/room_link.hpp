// The room parts of a page link. "#horde/join" makes the page a client of the room that
// served it; "&name=Ann" chooses the display name. A link's other parts are the in-page
// playgrounds' settings (Host::apply_url), so these are taken out first.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vantage::play {

struct RoomLink {
    bool join = false;       // "join": take a seat in the room
    std::string playground;  // the link's playground, e.g. "horde"
    std::string name;        // "name=...", sanitised by the server too
    std::string url;         // "room=ws://host:port/ws" (the desktop's --join), empty: the page's own origin
    bool teach = false;      // "teach": the teacher console (with "token=...")
    std::string token;       // "token=...", hex as `vantage serve` prints it
    bool follow = false;     // "follow": mirror the teacher's page
};

// Splits `hash` ("#name/part&part...") into its room parts (returned in `link`) and the rest
// (returned, in the same format, for Host::apply_url). `errors` gets one message per room
// part it refused (a name that is empty, or a room URL that is not ws://).
std::string split_room_link(std::string_view hash, RoomLink& link, std::vector<std::string>& errors);
// The link of a joined page: "#horde/join&name=Ann".
std::string room_link_hash(const RoomLink& link);
// The room parts other than join, appended to an in-page link: "&teach&token=..." or "&follow".
std::string class_link_suffix(const RoomLink& link);

}  // namespace vantage::play
