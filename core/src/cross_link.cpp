#include "vantage/cross_link.hpp"

#include <algorithm>
#include <cmath>

#include "vantage/always_inline.hpp"
#include "vantage/assert.hpp"
#include "vantage/proximity.hpp"

namespace vantage {

namespace {

const CrossLinkOptions& checked(const CrossLinkOptions& options) {
    VANTAGE_ASSERT_VALID(options, "CrossLink: invalid CrossLinkOptions");
    return options;
}

void erase_value(std::vector<std::uint32_t>& v, std::uint32_t value) {
    const auto it = std::find(v.begin(), v.end(), value);
    if (it == v.end()) return;
    *it = v.back();
    v.pop_back();
}

}  // namespace

std::string_view CrossLinkOptions::validate() const {
    if (id_limit == 0) return "id_limit must be at least 1";
    if (id_limit > kMaxIdLimit) return "id_limit beyond kMaxIdLimit";
    return {};
}

CrossLink::CrossLink(const CrossLinkOptions& options)
    : options_(checked(options)), head_(options.id_limit), nodes_(std::size_t{options.id_limit} + 1) {
    for (int axis : {kX, kY}) {
        nodes_[head_].prev[axis] = head_;
        nodes_[head_].next[axis] = head_;
    }
    views_.resize(options.id_limit);
    observers_.resize(options.id_limit);
}

bool CrossLink::contains(std::uint32_t id) const {
    return id < head_ && nodes_[id].present;
}

std::optional<Vec2> CrossLink::position(std::uint32_t id) const {
    if (!contains(id)) return std::nullopt;
    return nodes_[id].position;
}

void CrossLink::unlink(std::uint32_t n, int axis) {
    Node& node = nodes_[n];
    nodes_[node.prev[axis]].next[axis] = node.next[axis];
    nodes_[node.next[axis]].prev[axis] = node.prev[axis];
}

void CrossLink::link_after(std::uint32_t n, std::uint32_t at, int axis) {
    const std::uint32_t after = nodes_[at].next[axis];
    nodes_[n].prev[axis] = at;
    nodes_[n].next[axis] = after;
    nodes_[after].prev[axis] = n;
    nodes_[at].next[axis] = n;
}

// Links the unlinked node n into its sorted place, searching outward from `start` (a linked
// node, or the head to search from the beginning).
void CrossLink::place_from(std::uint32_t n, std::uint32_t start, int axis) {
    const float v = coord(n, axis);
    if (start != head_ && coord(start, axis) > v) {
        std::uint32_t cur = start;
        while (cur != head_ && coord(cur, axis) > v) cur = nodes_[cur].prev[axis];
        link_after(n, cur, axis);
        return;
    }
    std::uint32_t cur = start == head_ ? nodes_[head_].next[axis] : start;
    while (cur != head_ && coord(cur, axis) < v) cur = nodes_[cur].next[axis];
    link_after(n, nodes_[cur].prev[axis], axis);
}

// After n's coordinate changed: if it is now out of order, walk it from where it is.
void CrossLink::reorder(std::uint32_t n, int axis) {
    const float v = coord(n, axis);
    const std::uint32_t before = nodes_[n].prev[axis];
    const std::uint32_t after = nodes_[n].next[axis];
    std::uint32_t start = head_;
    if (before != head_ && coord(before, axis) > v) {
        start = before;
    } else if (after != head_ && coord(after, axis) < v) {
        start = after;
    } else {
        return;
    }
    unlink(n, axis);
    place_from(n, start, axis);
}

// A present landmark whose coordinate is the largest at or below v, found by bisection
// over the landmarks of the last rebuild (or the head when there is none). Landmarks drift
// as entities move and go stale when removed, so the array may no longer be sorted: any
// present node is a correct place to start a walk, only a slower one, and a stale
// (removed) landmark is never used.
std::uint32_t CrossLink::landmark_near(float v, int axis) const {
    const std::vector<std::uint32_t>& marks = landmarks_[axis];
    std::size_t lo = 0;
    std::size_t hi = marks.size();
    while (lo < hi) {  // first landmark above v, assuming (not requiring) ascending order
        const std::size_t mid = lo + (hi - lo) / 2;
        const std::uint32_t m = marks[mid];
        if (nodes_[m].present && coord(m, axis) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (std::size_t k = lo; k-- > 0;)
        if (nodes_[marks[k]].present) return marks[k];
    return head_;
}

// Every kLandmarkSpacing-th node of each list, walked from the head: O(n), done when the
// population has grown by half since the last time, so O(1) amortised per add.
void CrossLink::rebuild_landmarks() {
    for (int axis : {kX, kY}) {
        std::vector<std::uint32_t>& marks = landmarks_[axis];
        marks.clear();
        std::size_t k = 0;
        for (std::uint32_t m = nodes_[head_].next[axis]; m != head_; m = nodes_[m].next[axis], ++k)
            if (k % kLandmarkSpacing == 0) marks.push_back(m);
    }
    landmarks_size_ = size_;
}

CrossLinkStatus CrossLink::insert(std::uint32_t id, Vec2 position, std::uint32_t start) {
    Node& node = nodes_[id];
    node.position = position;
    observers_[id].reserve(4);  // a few watchers see it without allocating
    node.watching = false;
    for (int axis : {kX, kY}) {
        // Ties go after the start node's equals; the sorted invariant holds either way.
        // Without a hint, start from the nearest landmark instead of the head.
        place_from(id, start == head_ ? landmark_near(coord(id, axis), axis) : start, axis);
    }
    node.present = true;  // only now: a landmark search must not start from id itself
    ++size_;
    if (size_ >= landmarks_size_ + landmarks_size_ / 2 && size_ >= 4 * kLandmarkSpacing) rebuild_landmarks();
    update_watchers_after_change(id);
    return CrossLinkStatus::Ok;
}

CrossLinkStatus CrossLink::add(std::uint32_t id, Vec2 position) {
    if (id >= head_) return CrossLinkStatus::IdOutOfRange;
    if (!position.is_finite()) return CrossLinkStatus::NonFinitePosition;
    if (nodes_[id].present) {
        move(id, position);
        return CrossLinkStatus::MovedExisting;
    }
    return insert(id, position, head_);
}

CrossLinkStatus CrossLink::add_near(std::uint32_t id, Vec2 position, std::uint32_t hint) {
    if (id >= head_) return CrossLinkStatus::IdOutOfRange;
    if (!position.is_finite()) return CrossLinkStatus::NonFinitePosition;
    if (!contains(hint)) return CrossLinkStatus::UnknownId;
    if (nodes_[id].present) {
        move(id, position);
        return CrossLinkStatus::MovedExisting;
    }
    return insert(id, position, hint);
}

CrossLinkStatus CrossLink::move(std::uint32_t id, Vec2 position) {
    if (id >= head_) return CrossLinkStatus::IdOutOfRange;
    if (!nodes_[id].present) return CrossLinkStatus::UnknownId;
    if (!position.is_finite()) return CrossLinkStatus::NonFinitePosition;
    nodes_[id].position = position;
    reorder(id, kX);
    reorder(id, kY);
    update_watchers_after_change(id);
    return CrossLinkStatus::Ok;
}

CrossLinkStatus CrossLink::remove(std::uint32_t id) {
    if (id >= head_) return CrossLinkStatus::IdOutOfRange;
    if (!nodes_[id].present) return CrossLinkStatus::UnknownId;
    std::vector<std::uint32_t>& seen_by = observers_[id];
    for (const std::uint32_t w : seen_by) {
        erase_value(views_[w], id);
        events_.push_back({w, id, AoiEventKind::Left});
    }
    seen_by.clear();
    if (nodes_[id].watching) unwatch(id);
    unlink(id, kX);
    unlink(id, kY);
    nodes_[id].present = false;
    --size_;
    return CrossLinkStatus::Ok;
}

// Calls visit(m) for every other entity m in the square of half-width `reach` around n: one
// walk along the y list through the band |dy| <= reach, keeping the nodes with
// |dx| <= reach (every node carries its position, so the x list has nothing to add): first
// downwards from n (descending y list order), then turn(), then upwards (ascending).
template <class Visit, class Turn>
void CrossLink::visit_band(std::uint32_t n, float reach, Visit&& visit, Turn&& turn) {
    const Vec2 c = nodes_[n].position;
    std::uint32_t walked = 0;
    for (std::uint32_t m = nodes_[n].prev[kY]; m != head_ && c.y - nodes_[m].position.y <= reach;
         m = nodes_[m].prev[kY]) {
        ++walked;
        if (std::abs(nodes_[m].position.x - c.x) <= reach) visit(m);
    }
    turn();
    for (std::uint32_t m = nodes_[n].next[kY]; m != head_ && nodes_[m].position.y - c.y <= reach;
         m = nodes_[m].next[kY]) {
        ++walked;
        if (std::abs(nodes_[m].position.x - c.x) <= reach) visit(m);
    }
    band_estimate_ = (band_estimate_ * 7 + walked) / 8;
}

CrossLinkStatus CrossLink::neighbors_in_radius(std::uint32_t id, float radius, std::vector<std::uint32_t>& out) {
    out.clear();
    if (id >= head_) return CrossLinkStatus::IdOutOfRange;
    if (!nodes_[id].present) return CrossLinkStatus::UnknownId;
    if (!(radius >= 0.0f) || !std::isfinite(radius)) return CrossLinkStatus::Ok;  // matches nothing
    const Vec2 c = nodes_[id].position;
    const std::size_t first = out.size();
    // The walk below n comes out in descending list order: reversing it before the walk
    // above gives the whole answer in y list order.
    visit_band(
        id, search_reach(radius),
        [&](std::uint32_t m) VANTAGE_ALWAYS_INLINE_LAMBDA {
            if (within_radius(nodes_[m].position, c, radius)) out.push_back(m);
        },
        [&] { std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()); });
    return CrossLinkStatus::Ok;
}

bool CrossLink::sees(std::uint32_t watcher, std::uint32_t subject) const {
    // The shorter of the two mirrored lists answers the same question.
    const std::vector<std::uint32_t>& seen_by = observers_[subject];
    const std::vector<std::uint32_t>& view_of = views_[watcher];
    if (seen_by.size() <= view_of.size()) return std::find(seen_by.begin(), seen_by.end(), watcher) != seen_by.end();
    return std::find(view_of.begin(), view_of.end(), subject) != view_of.end();
}

void CrossLink::pair(std::uint32_t watcher, std::uint32_t subject) {
    views_[watcher].push_back(subject);
    observers_[subject].push_back(watcher);
    events_.push_back({watcher, subject, AoiEventKind::Entered});
}

void CrossLink::unpair(std::uint32_t watcher, std::uint32_t subject) {
    erase_value(views_[watcher], subject);
    erase_value(observers_[subject], watcher);
    events_.push_back({watcher, subject, AoiEventKind::Left});
}

// Re-examines the watcher's own view around its current position.
void CrossLink::refresh_own_view(std::uint32_t n) {
    const Node& me = nodes_[n];
    std::vector<std::uint32_t>& mine = views_[n];
    for (std::size_t i = mine.size(); i-- > 0;) {
        const std::uint32_t e = mine[i];
        if (!within_radius(nodes_[e].position, me.position, me.leave_radius)) unpair(n, e);
    }
    visit_band(n, search_reach(me.enter_radius), [&](std::uint32_t e) {
        if (within_radius(nodes_[e].position, me.position, me.enter_radius) && !sees(n, e)) pair(n, e);
    });
}

// Entity n was added or moved: only pairs involving n can have changed.
void CrossLink::update_watchers_after_change(std::uint32_t n) {
    if (watchers_.empty()) return;
    const Vec2 p = nodes_[n].position;
    // n leaving the views of watchers that saw it.
    std::vector<std::uint32_t>& seen_by = observers_[n];
    for (std::size_t i = seen_by.size(); i-- > 0;) {
        const std::uint32_t w = seen_by[i];
        if (!within_radius(p, nodes_[w].position, nodes_[w].leave_radius)) unpair(w, n);
    }
    // n's own view.
    if (nodes_[n].watching) refresh_own_view(n);
    // n entering the views of watchers near it: found by walking the band, or, when there are
    // fewer watchers than a band usually holds, by checking each watcher. Same set either way.
    const auto consider = [&](std::uint32_t w) {
        const Node& watcher = nodes_[w];
        if (w != n && watcher.watching && within_radius(p, watcher.position, watcher.enter_radius) && !sees(w, n))
            pair(w, n);
    };
    if (watchers_.size() <= band_estimate_) {
        for (const std::uint32_t w : watchers_) consider(w);
    } else {
        visit_band(n, search_reach(max_enter_radius_), consider);
    }
}

CrossLinkStatus CrossLink::watch(std::uint32_t id, float enter_radius, float leave_margin) {
    if (id >= head_) return CrossLinkStatus::IdOutOfRange;
    if (!nodes_[id].present) return CrossLinkStatus::UnknownId;
    if (!std::isfinite(enter_radius) || !std::isfinite(leave_margin) || enter_radius < 0.0f || leave_margin < 0.0f ||
        !std::isfinite(enter_radius + leave_margin))
        return CrossLinkStatus::InvalidRadius;
    Node& node = nodes_[id];
    if (!node.watching) watchers_.push_back(id);
    node.watching = true;
    views_[id].reserve(64);  // a view fills without allocating on every entry
    node.enter_radius = enter_radius;
    node.leave_radius = enter_radius + leave_margin;
    max_enter_radius_ = std::max(max_enter_radius_, enter_radius);
    refresh_own_view(id);
    return CrossLinkStatus::Ok;
}

CrossLinkStatus CrossLink::unwatch(std::uint32_t id) {
    if (id >= head_) return CrossLinkStatus::IdOutOfRange;
    if (!nodes_[id].present) return CrossLinkStatus::UnknownId;
    Node& node = nodes_[id];
    if (!node.watching) return CrossLinkStatus::Ok;
    for (const std::uint32_t e : views_[id]) erase_value(observers_[e], id);
    views_[id].clear();
    node.watching = false;
    erase_value(watchers_, id);
    recompute_max_enter();
    return CrossLinkStatus::Ok;
}

void CrossLink::recompute_max_enter() {
    max_enter_radius_ = 0.0f;
    for (const std::uint32_t w : watchers_) max_enter_radius_ = std::max(max_enter_radius_, nodes_[w].enter_radius);
}

bool CrossLink::is_watching(std::uint32_t id) const {
    return contains(id) && nodes_[id].watching;
}

std::span<const std::uint32_t> CrossLink::view(std::uint32_t id) const {
    if (!contains(id)) return {};
    return views_[id];
}

const char* CrossLink::validate_structure() const {
    for (int axis : {kX, kY}) {
        std::size_t count = 0;
        std::uint32_t prev = head_;
        for (std::uint32_t m = nodes_[head_].next[axis]; m != head_; m = nodes_[m].next[axis]) {
            if (m >= head_ || !nodes_[m].present) return "a list links an absent or out-of-range node";
            if (nodes_[m].prev[axis] != prev) return "a prev link does not mirror its next link";
            if (prev != head_ && coord(prev, axis) > coord(m, axis)) return "a list is out of order";
            if (++count > size_) return "a list is longer than the entity count (cycle?)";
            prev = m;
        }
        if (nodes_[head_].prev[axis] != prev) return "the head's prev link is not the tail";
        if (count != size_) return "a list is shorter than the entity count";
    }
    for (std::uint32_t w = 0; w < head_; ++w) {
        for (const std::uint32_t e : views_[w]) {
            if (!nodes_[w].watching || !nodes_[e].present) return "a view names an absent entity or a non-watcher";
            const auto& seen_by = observers_[e];
            if (std::count(seen_by.begin(), seen_by.end(), w) != 1) return "a view is not mirrored by its observers";
        }
        for (const std::uint32_t o : observers_[w]) {
            const auto& v = views_[o];
            if (std::count(v.begin(), v.end(), w) != 1) return "an observer is not mirrored by its view";
        }
    }
    return nullptr;
}

}  // namespace vantage
