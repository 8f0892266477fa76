// CrossLink: area-of-interest by cross-linked lists (十字链表), with enter/leave watchers.
//
// Every entity sits on two doubly linked lists at once, one sorted by x and one by y. A
// radius query around an entity walks outward along the y list while |dy| <= r (the y band)
// and keeps the nodes with |dx| <= r that pass the exact within_radius test; the x list
// keeps moves and adds local. No cell size to tune, but the walk is the whole band, a strip
// across the world, not the 2r x 2r square (core/docs/relevance.md measures what that costs).
//
// Beyond the seed design this is built from (seed 001, core/docs/background.md):
//   - move() walks from the entity's current place in each list, so its cost is the number
//     of entities it overtakes in x and in y, not a walk from the head. add() starts from
//     the nearest of a sparse set of landmarks (every 8th node of each list, re-taken
//     whenever the population has grown by half): O(log n) to find it plus the walk from it, which
//     stays short while the landmarks are representative (entities that move far between
//     rebuilds make it longer, never wrong). add_near() starts from another entity's
//     place, which makes a spawn next to a known entity as cheap as a short move.
//   - Watchers: watch(id, enter_radius, leave_margin) gives an entity a view. Whenever it
//     or anything else is added, moved or removed, views are updated and the changes are
//     queued as events: an entity enters a view when it comes within enter_radius and
//     leaves only when it is beyond enter_radius + leave_margin (hysteresis, so a neighbour
//     loitering on the boundary does not flap). Only the pairs involving the entity that
//     changed are re-examined, so a move costs its list walk, its watchers' checks and one
//     band walk (or a pass over the watcher list when that is shorter), not a global pass.
//
// When to prefer it over SpatialGrid (the published grid-against-cross-list measurements in
// core/docs/background.md, and ours in core/docs/relevance.md): few moves per query and a
// sparse or very uneven world. When it collapses: many entities in one spot. Then every band
// holds everyone, a query is O(n), and a move crossing the crowd walks past all of it.
//
// Ids are dense slot indices below options.id_limit; memory is reserved up front for all of
// them (about 90 bytes per id). Bad input (unknown, out-of-range ids, non-finite positions
// or radii) returns a status and changes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vantage/vec.hpp"

namespace vantage {

struct CrossLinkOptions {
    std::uint32_t id_limit = 1u << 16;  // ids accepted are [0, id_limit); 1 .. kMaxIdLimit

    static constexpr std::uint32_t kMaxIdLimit = 1u << 24;
    // Empty when usable, otherwise why not, naming the field.
    std::string_view validate() const;
};

enum class CrossLinkStatus {
    Ok,
    MovedExisting,      // add() of an id already present: it was moved instead
    UnknownId,          // no entity with that id (move, remove, query, watch, add_near's hint)
    IdOutOfRange,       // id >= options.id_limit
    NonFinitePosition,  // NaN or inf in a position: nothing changed
    InvalidRadius,      // watch(): a negative or non-finite radius or margin
};

enum class AoiEventKind : std::uint8_t { Entered, Left };

// Names for logs, readouts and test failures (core/docs/conventions.md).
constexpr const char* to_string(CrossLinkStatus status) {
    switch (status) {
        case CrossLinkStatus::Ok:
            return "ok";
        case CrossLinkStatus::MovedExisting:
            return "moved existing";
        case CrossLinkStatus::UnknownId:
            return "unknown id";
        case CrossLinkStatus::IdOutOfRange:
            return "id out of range";
        case CrossLinkStatus::NonFinitePosition:
            return "non-finite position";
        case CrossLinkStatus::InvalidRadius:
            return "invalid radius";
    }
    return "unknown cross link status";
}

constexpr const char* to_string(AoiEventKind kind) {
    switch (kind) {
        case AoiEventKind::Entered:
            return "entered";
        case AoiEventKind::Left:
            return "left";
    }
    return "unknown aoi event kind";
}

// `subject` entered or left `watcher`'s view.
struct AoiEvent {
    std::uint32_t watcher = 0;
    std::uint32_t subject = 0;
    AoiEventKind kind = AoiEventKind::Entered;
    constexpr bool operator==(const AoiEvent&) const = default;
};

class CrossLink {
public:
    // Asserts options.validate() (a configuration error).
    explicit CrossLink(const CrossLinkOptions& options = {});

    // Inserts an entity, walking from the nearest landmark in each list (see above). An id
    // already present is moved instead (returns MovedExisting).
    CrossLinkStatus add(std::uint32_t id, Vec2 position);
    // Inserts an entity starting the walk from entity `hint`'s place in each list, so the
    // cost is how far apart the two are in list order. UnknownId if the hint is absent.
    CrossLinkStatus add_near(std::uint32_t id, Vec2 position, std::uint32_t hint);
    // Moves an entity, walking from its current place in each list.
    CrossLinkStatus move(std::uint32_t id, Vec2 position);
    // Removes an entity: it leaves every view it was in (events queued); its own view, if it
    // was watching, is dropped without events.
    CrossLinkStatus remove(std::uint32_t id);

    bool contains(std::uint32_t id) const;
    std::optional<Vec2> position(std::uint32_t id) const;
    std::size_t size() const { return size_; }

    // Replaces out with every other entity within_radius(radius) of entity id (not id itself), in y
    // list order: ascending y, entities with equal y in their list order. Not const: every
    // band walk feeds the running band-size estimate that moves use to find watchers.
    CrossLinkStatus neighbors_in_radius(std::uint32_t id, float radius, std::vector<std::uint32_t>& out);

    // Makes `id` a watcher (or changes its radii): its view becomes everything within
    // enter_radius, reported as Entered events (and, when radii change, Left events for
    // members now beyond enter_radius + leave_margin).
    CrossLinkStatus watch(std::uint32_t id, float enter_radius, float leave_margin);
    // Stops watching; the view is dropped without events.
    CrossLinkStatus unwatch(std::uint32_t id);
    bool is_watching(std::uint32_t id) const;
    // A watcher's current view, in no particular order (empty for a non-watcher).
    std::span<const std::uint32_t> view(std::uint32_t id) const;

    // Changes to views since the last clear_events(), in the order they happened.
    std::span<const AoiEvent> events() const { return events_; }
    void clear_events() { events_.clear(); }

    // nullptr when both lists are sorted and consistent and every view mirrors its
    // observers; otherwise what is wrong. O(n + pairs); for tests.
    const char* validate_structure() const;

    const CrossLinkOptions& options() const { return options_; }

private:
    static constexpr int kX = 0;
    static constexpr int kY = 1;

    struct Node {
        Vec2 position;
        std::uint32_t prev[2] = {0, 0};
        std::uint32_t next[2] = {0, 0};
        float enter_radius = 0.0f;
        float leave_radius = 0.0f;
        bool present = false;
        bool watching = false;
    };

    float coord(std::uint32_t n, int axis) const { return axis == kX ? nodes_[n].position.x : nodes_[n].position.y; }
    void unlink(std::uint32_t n, int axis);
    void link_after(std::uint32_t n, std::uint32_t at, int axis);
    void place_from(std::uint32_t n, std::uint32_t start, int axis);
    void reorder(std::uint32_t n, int axis);
    CrossLinkStatus insert(std::uint32_t id, Vec2 position, std::uint32_t start);
    std::uint32_t landmark_near(float v, int axis) const;
    void rebuild_landmarks();
    struct NoTurn {
        void operator()() const {}
    };
    template <class Visit, class Turn = NoTurn>
    void visit_band(std::uint32_t n, float reach, Visit&& visit, Turn&& turn = {});
    bool sees(std::uint32_t watcher, std::uint32_t subject) const;
    void pair(std::uint32_t watcher, std::uint32_t subject);
    void unpair(std::uint32_t watcher, std::uint32_t subject);
    void update_watchers_after_change(std::uint32_t n);
    void refresh_own_view(std::uint32_t n);
    void recompute_max_enter();

    CrossLinkOptions options_;
    std::uint32_t head_;  // the sentinel: index id_limit, on both lists
    std::vector<Node> nodes_;
    std::size_t size_ = 0;
    std::vector<std::vector<std::uint32_t>> views_;      // per watcher: who it sees
    std::vector<std::vector<std::uint32_t>> observers_;  // per entity: who sees it
    std::vector<std::uint32_t> watchers_;
    float max_enter_radius_ = 0.0f;
    std::uint32_t band_estimate_ = 0;  // running mean of y-band walks: picks how to find watchers
    std::vector<AoiEvent> events_;
    // add()'s starting points: every kLandmarkSpacing-th node of each list as of the last
    // rebuild (at landmarks_size_ entities), so an add walks O(log n + spacing) while the
    // landmarks stay representative.
    static constexpr std::size_t kLandmarkSpacing = 8;
    std::vector<std::uint32_t> landmarks_[2];
    std::size_t landmarks_size_ = 0;
};

}  // namespace vantage
