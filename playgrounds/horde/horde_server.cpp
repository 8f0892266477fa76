#include "horde/horde_server.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace vantage::play {

namespace {
// A budgeted frame waits until the budget holds this much, bytes: half a datagram. Frames
// much smaller than the changes in flight leave the baseline no room to repeat them, and it
// rebuilds (measured at 4 KiB/s: a quarter datagram rebuilt once in 15 s, half never).
constexpr std::size_t kBudgetedFrameBytes = kMaxHordePacketBytes / 2;
// Counterfactual wire: a 16-byte id per key and two f32 per position.
constexpr double kUuidBytes = 16.0;
constexpr double kFloatPositionBytes = 8.0;
constexpr double kUuidCrowdBytes = 8.0 + 4.0;  // f32 position and a u32 headcount
}  // namespace

const HordeRound& HordeRoundBuilder::build(const HordeWorld& w, float view_radius, bool need_everyone, bool need_tree,
                                           double now_ms, std::span<const std::uint8_t> wanted, Profiler* profiler) {
    const std::size_t players = w.player_positions().size();
    if (relevant_.size() != players) relevant_.resize(players);
    {
        PhaseScope phase(profiler, "relevance");
        for (std::size_t c = 0; c < players; ++c) {
            std::vector<std::uint64_t>& keys = relevant_[c];
            keys.clear();
            if (!wanted.empty() && (c >= wanted.size() || wanted[c] == 0)) continue;
            w.grid().for_each_in_radius(w.player_positions()[c], view_radius,
                                        [&](std::uint32_t id, Vec2) { keys.push_back(w.key_at(id)); });
            std::sort(keys.begin(), keys.end());
        }
    }
    if (need_everyone) {
        everyone_.clear();
        for (std::uint32_t id : w.alive_ids()) everyone_.push_back(w.key_at(id));  // ascending slot = ascending key
    }
    round_.tree = nullptr;
    if (need_tree) {
        PhaseScope phase(profiler, "aggregation");
        points_.clear();
        for (Vec2 p : w.alive_positions()) points_.push_back({p.x, p.y, 1.0f});
        tree_.build_in(points_, {horde::kArena * 0.5f, horde::kArena * 0.5f}, horde::kArena, 10);
        round_.tree = &tree_;
    }
    round_.world = &w;
    round_.relevant = &relevant_;
    round_.everyone = &everyone_;
    round_.now_ms = now_ms;
    return round_;
}

void HordeServerHalf::note_arrived(const AckReport& report) {
    // A report naming a frame never sent is bad data: nothing in it is believed.
    if (report.newest >= baseline_.next_seq()) return;
    auto set = [&](std::uint64_t seq) { arrived_[(seq / 64) % arrived_.size()] |= std::uint64_t{1} << (seq % 64); };
    auto clear = [&](std::uint64_t seq) {
        arrived_[(seq / 64) % arrived_.size()] &= ~(std::uint64_t{1} << (seq % 64));
    };
    if (!any_arrived_) {
        arrived_.fill(0);
        arrived_newest_ = report.newest;
        any_arrived_ = true;
    } else if (report.newest > arrived_newest_) {
        // Forget the sequences the window slides past.
        const std::uint64_t shift = std::min(report.newest - arrived_newest_, kArrivedWindow);
        for (std::uint64_t i = 1; i <= shift; ++i) clear(arrived_newest_ + i);
        arrived_newest_ = report.newest;
    }
    if (arrived_newest_ - report.newest < kArrivedWindow) set(report.newest);
    for (std::uint64_t i = 0; i < 64; ++i) {
        if (((report.mask >> i) & 1u) == 0 || report.newest < i + 1) continue;
        const std::uint64_t seq = report.newest - 1 - i;
        if (arrived_newest_ - seq < kArrivedWindow) set(seq);
    }
}

bool HordeServerHalf::arrived(std::uint64_t seq) const {
    if (!any_arrived_ || seq > arrived_newest_ || arrived_newest_ - seq >= kArrivedWindow) return false;
    return (arrived_[(seq / 64) % arrived_.size()] >> (seq % 64)) & 1u;
}

bool HordeServerHalf::known_lost(std::uint64_t seq) const {
    return any_arrived_ && seq <= arrived_newest_ && !arrived(seq);
}

bool HordeServerHalf::may_repeat(const KeyRefs* refs, std::uint64_t seq) const {
    if (!refs || !refs->entry_sent) return false;
    if (arrived(refs->entry_seq)) return true;
    // Before any report there is no estimate (0): the position travels every time.
    return !known_lost(refs->entry_seq) && static_cast<double>(seq - refs->entry_seq) < std::round(ack_frames_);
}

void HordeServerHalf::note_round_trip(const AckReport& report) {
    // Only a report whose newest is newer than any before: one sample per frame, when its
    // first report is read.
    if (report.newest >= baseline_.next_seq() || (any_arrived_ && report.newest <= arrived_newest_)) return;
    const double sample = static_cast<double>(baseline_.next_seq() - report.newest);
    ack_frames_ = ack_frames_ == 0 ? sample : 0.875 * ack_frames_ + 0.125 * sample;
}

bool HordeServerHalf::needs_value(const KeyRefs& refs, std::uint64_t seq) const {
    if (!refs.entry_sent || !refs.repeated || !known_lost(refs.entry_seq)) return false;
    for (std::size_t i = 0; i < refs.refs.count; ++i) {
        const std::uint64_t sent_seq = seq - refs.refs.refs[i].age(seq);
        if (sent_seq != refs.entry_seq && !known_lost(sent_seq)) return false;
    }
    return true;
}

const HordeServerHalf::KeyRefs* HordeServerHalf::refs_of(std::uint64_t key) const {
    const auto it =
        std::lower_bound(refs_.begin(), refs_.end(), key, [](const KeyRefs& r, std::uint64_t k) { return r.key < k; });
    return it != refs_.end() && it->key == key ? &*it : nullptr;
}

HordeServerHalf::KeyRefs* HordeServerHalf::refs_of(std::uint64_t key) {
    return const_cast<KeyRefs*>(static_cast<const HordeServerHalf*>(this)->refs_of(key));
}

HordeCorrection HordeServerHalf::correction_for(const KeyRefs* refs, std::uint64_t key, Vec2 p, std::uint64_t seq,
                                                std::uint64_t time_ms, std::span<const Vec2> players,
                                                CorrectionCoding coding) const {
    const SlotKey slot = *SlotKey::decode(key);
    HordeCorrection c;
    c.index = slot.index;
    // An unencodable position is written as 0 and fails the packet (as write_fixed does).
    c.x = quantize(p.x, kSampleStep).value_or(0);
    c.y = quantize(p.y, kSampleStep).value_or(0);
    c.generation = slot.generation;
    if (coding != CorrectionCoding::Predicted || !refs) return c;
    // The newest value the client acknowledged: it holds it whatever else was lost.
    for (std::size_t i = refs->refs.count; i-- > 0;) {
        const HordeRef& r = refs->refs.refs[i];
        const std::uint32_t age = r.age(seq);
        if (age == 0 || !arrived(seq - age)) continue;
        std::int32_t px = 0, py = 0;
        if (!predict_enemy_quanta(r.x, r.y, key, players, r.age_s(time_ms), px, py)) break;
        const std::int64_t dx = static_cast<std::int64_t>(c.x) - px;
        const std::int64_t dy = static_cast<std::int64_t>(c.y) - py;
        // Past a few hundred units the absolute form is as short.
        constexpr std::int64_t kMaxResidual = 1 << 13;
        if (dx < -kMaxResidual || dx > kMaxResidual || dy < -kMaxResidual || dy > kMaxResidual) break;
        c.age = age;
        c.generation = 0;
        c.x = static_cast<std::int32_t>(dx);
        c.y = static_cast<std::int32_t>(dy);
        break;
    }
    return c;
}

HordeSent HordeServerHalf::serve(const HordeRound& round, std::size_t player, const HordeServeOptions& options,
                                 Transport& link, HordeServeScratch& scratch, Profiler* profiler) {
    HordeSent sent;
    const double now_ms = round.now_ms;
    DeltaPlan& plan_ = scratch.plan;  // short local names for the shared buffers
    std::vector<Vec2>& entered_positions_ = scratch.entered_positions;
    std::vector<HordeCorrection>& samples_ = scratch.samples;
    std::vector<CrowdBlob>& crowd_ = scratch.crowd;
    std::vector<Summary>& summaries_ = scratch.summaries;
    std::vector<std::uint8_t>& packet_ = scratch.packet;
    std::optional<PhaseScope> phase(std::in_place, profiler, "delta");
    while (link.poll(now_ms, packet_)) {
        AckReport report;
        if (decode_ack(packet_, report) != WireError::Ok) {
            ++decode_errors_;
            continue;
        }
        note_round_trip(report);
        note_arrived(report);
        baseline_.observe_ack(report, now_ms);
    }
    const HordeWorld& w = *round.world;
    const std::vector<std::uint64_t>& relevant = (*round.relevant)[player];
    const std::vector<std::uint64_t>& keys = options.relevance ? relevant : *round.everyone;
    const Vec2 eye = w.player_positions()[player];

    // Priorities grow on every round, sent or not (time since the last value, by closeness).
    const bool budgeted = options.budget_bytes_per_sec > 0.0;
    const double dt_s = last_serve_ms_ < 0 ? 0.0 : std::max(0.0, (now_ms - last_serve_ms_) / 1000.0);
    last_serve_ms_ = now_ms;
    if (budgeted) {
        scratch.weights.clear();
        const float radius = static_cast<float>(std::max(1.0, options.view_radius));
        for (std::uint64_t k : keys) {
            const float d = distance(w.position_at(SlotKey::decode(k)->index), eye);
            scratch.weights.push_back(std::clamp(1.0f - d / radius, 0.1f, 1.0f));
        }
        priority_.accumulate(keys, scratch.weights, dt_s);
        const ByteBudgetOptions budget{.bytes_per_sec = options.budget_bytes_per_sec,
                                       .burst_bytes = static_cast<double>(kMaxHordePacketBytes)};
        if (!budget_) {
            budget_.emplace(budget);
        } else if (budget_->options().bytes_per_sec != budget.bytes_per_sec) {
            budget_->set_options(budget);
        }
        budget_->refill(now_ms);
    } else {
        budget_.reset();
        priority_.clear();
    }
    if (!baseline_.should_send(now_ms)) return sent;

    // The packet fits one datagram and the budget: players and crowd first (they do not depend
    // on the plan), the delta into what they leave, then as many corrections as the rest holds.
    const std::size_t limit = budgeted ? std::min(kMaxHordePacketBytes, budget_->available()) : kMaxHordePacketBytes;
    if (budgeted && limit < kBudgetedFrameBytes) return sent;
    const std::uint64_t time_ms = static_cast<std::uint64_t>(std::llround(now_ms));
    const std::size_t players = w.player_positions().size();
    std::size_t used =
        1 + varint_size(time_ms) + 2 /* frame length: < 16384 */ + varint_size(players) + players * kHordePositionBytes;
    if (used + kMinFrameBytes + 2 > limit) return sent;  // the budget holds no frame yet: wait
    crowd_.clear();
    if (options.theta > 0.0f && round.tree) {
        phase.reset();
        phase.emplace(profiler, "aggregation");
        const float r2 = static_cast<float>(options.view_radius * options.view_radius);
        round.tree->summarize(eye, options.theta, summaries_);
        double covered = 0;
        // Leave the delta at least its minimum frame; blobs beyond that wait (coverage shows it).
        std::size_t crowd_bytes = 3;  // count: < 2^21
        for (const Summary& s : summaries_) {
            if ((s.position() - eye).length_squared() <= r2) continue;  // inside the view: sent exactly
            const std::size_t blob = kCrowdPositionBytes + varint_size(s.count);
            if (used + crowd_bytes + blob + kMinFrameBytes + 1 > limit) break;
            crowd_bytes += blob;
            crowd_.push_back({s.position(), s.count});
            covered += s.count;
        }
        used += crowd_bytes;
        const double distant = static_cast<double>(w.alive_count()) - static_cast<double>(relevant.size());
        sent.coverage = distant > 0 ? std::min(1.0, covered / distant) : 1.0;
        sent.summarised = true;
        phase.reset();
        phase.emplace(profiler, "delta");
    } else {
        used += 1;
    }
    // Three bytes stay for the corrections' count, and one for the entered positions' viewer
    // (the planner counts kHordePositionBytes per entered key, which bounds the rest).
    baseline_.plan(keys, plan_, std::max(kMinFrameBytes, limit > used + 4 ? limit - used - 4 : 0));
    phase.reset();
    phase.emplace(profiler, "encode");

    const std::uint64_t seq = plan_.seq;
    // The values this client may hold, one record per relevant enemy (kept in key order).
    refs_next_.clear();
    if (refs_next_.capacity() < keys.size()) {
        // Relevant sets wander around a size: room for twice this one, so a steady stream
        // stops allocating once warm.
        refs_next_.reserve(2 * keys.size());
        refs_.reserve(2 * keys.size());
    }
    {
        std::size_t j = 0;
        for (std::uint64_t k : keys) {
            while (j < refs_.size() && refs_[j].key < k) ++j;
            if (j < refs_.size() && refs_[j].key == k) {
                refs_next_.push_back(refs_[j]);
            } else {
                KeyRefs fresh;
                fresh.key = k;
                refs_next_.push_back(fresh);
            }
        }
        refs_.swap(refs_next_);
    }

    if (plan_.full_baseline) {
        // A full baseline makes every held enemy afresh on the client (and one that arrives
        // hides every older frame): nothing sent before it is a value to name or a position
        // to repeat.
        for (KeyRefs& r : refs_) {
            r.refs.clear();
            r.entry_sent = false;
            r.repeated = false;
        }
    }

    // Entered keys whose position is already on its way (or arrived) repeat without it.
    entered_positions_.clear();
    scratch.repeated.clear();
    const bool predicted = options.coding == CorrectionCoding::Predicted;
    for (std::uint64_t k : plan_.entered) {
        entered_positions_.push_back(w.position_at(SlotKey::decode(k)->index));
        scratch.repeated.push_back(predicted && !plan_.full_baseline && may_repeat(refs_of(k), seq) ? 1 : 0);
    }
    if (predicted) {
        used += delta_frame_bytes(plan_, 0) +
                entered_part_bytes(entered_positions_, w.player_positions(), player, scratch.repeated);
    } else {
        used += delta_frame_bytes(plan_, kHordePositionBytes);
    }
    // The players exactly as the client will decode them: both ends predict toward these.
    scratch.players.clear();
    for (Vec2 p : w.player_positions()) {
        scratch.players.push_back({dequantize(quantize(p.x, kSampleStep).value_or(0), kSampleStep),
                                   dequantize(quantize(p.y, kSampleStep).value_or(0), kSampleStep)});
    }

    samples_.clear();
    scratch.sample_keys.clear();
    const CorrectionCoding coding = options.coding;
    const std::size_t room = limit > used ? limit - used : 0;
    auto entered_now = [&](std::uint64_t k) {
        return std::binary_search(plan_.entered.begin(), plan_.entered.end(), k);
    };
    const double sample_hz = std::clamp(options.sample_hz, 1.0, 60.0);
    if (!budgeted) {
        // Round-robin corrections: each relevant enemy every `ratio` frames, except those whose
        // entry (with its position) is in this frame already, while the packet has room (one
        // that does not fit waits for its next turn). An enemy the client may hold without a
        // value (needs_value) is corrected in every frame until one is on its way, ahead of the
        // round-robin: those still to come keep room for an absolute correction each.
        const auto ratio =
            static_cast<std::uint64_t>(std::max(1.0, std::round(std::clamp(options.send_hz, 1.0, 60.0) / sample_hz)));
        constexpr std::size_t kUrgentBytes = 8;  // bounds one absolute correction's bits
        std::size_t urgent_left = 0;
        for (const KeyRefs& r : refs_) {
            if (!entered_now(r.key) && needs_value(r, seq)) ++urgent_left;
        }
        CorrectionSizer sizer(coding);
        bool full = false;
        std::size_t r = 0;
        for (std::uint64_t k : keys) {
            const SlotKey slot = *SlotKey::decode(k);
            if (entered_now(k)) continue;
            while (r < refs_.size() && refs_[r].key < k) ++r;
            const KeyRefs* refs = r < refs_.size() && refs_[r].key == k ? &refs_[r] : nullptr;
            const bool urgent = urgent_left > 0 && refs && needs_value(*refs, seq);
            if (!urgent && (full || (slot.index + frames_) % ratio != 0)) continue;
            const HordeCorrection c =
                correction_for(refs, k, w.position_at(slot.index), seq, time_ms, scratch.players, coding);
            if (urgent) --urgent_left;
            const std::size_t reserve = urgent ? 0 : urgent_left * kUrgentBytes;
            if (!sizer.fits_with(c, room > reserve ? room - reserve : 0)) {
                if (!urgent) full = true;
                if (urgent_left == 0) break;
                continue;
            }
            sizer.add(c);
            samples_.push_back(c);
            scratch.sample_keys.push_back(k);
        }
    } else {
        // Highest priority first: the largest prefix of the ranking that fits (sizes grow with
        // every correction added, so a binary search over the prefix length finds it).
        priority_.ranked(scratch.ranked);
        // An enemy the client may hold without a value (needs_value) goes first.
        // (Moved one by one, in rank order: there are few, and this allocates nothing.)
        std::size_t urgent = 0;
        for (std::size_t i = 0; i < scratch.ranked.size(); ++i) {
            const KeyRefs* refs = refs_of(scratch.ranked[i]);
            if (!refs || entered_now(refs->key) || !needs_value(*refs, seq)) continue;
            const auto at = scratch.ranked.begin() + static_cast<std::ptrdiff_t>(i);
            std::rotate(scratch.ranked.begin() + static_cast<std::ptrdiff_t>(urgent), at, at + 1);
            ++urgent;
        }
        std::vector<std::size_t>& picked = scratch.picked;
        auto fill = [&](std::size_t n) {
            picked.clear();
            for (std::size_t i = 0; i < scratch.ranked.size() && picked.size() < n; ++i) {
                if (!entered_now(scratch.ranked[i])) picked.push_back(i);
            }
            std::sort(picked.begin(), picked.end(),
                      [&](std::size_t a, std::size_t b) { return scratch.ranked[a] < scratch.ranked[b]; });
            samples_.clear();
            scratch.sample_keys.clear();
            CorrectionSizer sizer(coding);
            for (std::size_t i : picked) {
                const std::uint64_t k = scratch.ranked[i];
                const HordeCorrection c = correction_for(refs_of(k), k, w.position_at(SlotKey::decode(k)->index), seq,
                                                         time_ms, scratch.players, coding);
                sizer.add(c);
                samples_.push_back(c);
                scratch.sample_keys.push_back(k);
            }
            return sizer.bytes();
        };
        // No more than the correction rate asks for over the time since the last frame: a
        // budget caps the stream, it does not fill itself with corrections nobody needs.
        const double since_s = last_sent_ms_ < 0 ? 1.0 / std::clamp(options.send_hz, 1.0, 60.0)
                                                 : std::max(0.0, (now_ms - last_sent_ms_) / 1000.0);
        const auto wanted = static_cast<std::size_t>(std::ceil(static_cast<double>(keys.size()) * sample_hz * since_s));
        std::size_t lo = 0, hi = std::min(scratch.ranked.size(), std::max(wanted, urgent));
        while (lo < hi) {
            const std::size_t mid = (lo + hi + 1) / 2;
            if (fill(mid) <= room) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        fill(lo);
    }

    sent.bytes = encode_horde_packet(scratch.writer, scratch.nested, time_ms, plan_, entered_positions_,
                                     w.player_positions(), player, coding, samples_, crowd_, scratch.repeated);
    if (!sent.bytes.ok || scratch.writer.size() > limit) {
        // The encoder refused what no client could decode (a position off the wire's range, a
        // list over its limit): counted, never sent; the baseline treats it as lost.
        ++refused_frames_;
        return sent;
    }
    link.send(now_ms, scratch.writer.bytes());
    if (budget_) budget_->spend(scratch.writer.size());
    last_sent_ms_ = now_ms;
    // What this frame told the client, for the next frames' predictions: an entry starts an
    // enemy's values afresh (the client makes a new one), a correction adds its true quanta.
    // A repeat tells it nothing new (its values stand as they were).
    for (std::size_t i = 0; i < plan_.entered.size(); ++i) {
        if (scratch.repeated[i] != 0) {
            if (KeyRefs* refs = refs_of(plan_.entered[i])) refs->repeated = true;
            continue;
        }
        if (KeyRefs* refs = refs_of(plan_.entered[i])) {
            refs->refs.clear();
            refs->refs.push(HordeRef::at(seq, time_ms, quantize(entered_positions_[i].x, kSampleStep).value_or(0),
                                         quantize(entered_positions_[i].y, kSampleStep).value_or(0)),
                            seq);
            refs->entry_seq = seq;
            refs->entry_sent = true;
        }
        priority_.sent(plan_.entered[i]);
    }
    for (std::size_t i = 0; i < samples_.size(); ++i) {
        const std::uint64_t k = scratch.sample_keys[i];
        const Vec2 p = w.position_at(samples_[i].index);
        if (KeyRefs* refs = refs_of(k)) {
            refs->refs.push(HordeRef::at(seq, time_ms, quantize(p.x, kSampleStep).value_or(0),
                                         quantize(p.y, kSampleStep).value_or(0)),
                            seq);
        }
        priority_.sent(k);
        if (samples_[i].age > 0) ++sent.predicted;
    }
    largest_packet_bytes_ = std::max(largest_packet_bytes_, scratch.writer.size());
    ++frames_;
    sent.sent = true;
    sent.entered = plan_.entered.size();
    sent.repeats = static_cast<std::size_t>(std::count(scratch.repeated.begin(), scratch.repeated.end(), 1));
    sent.left = plan_.left.size();
    sent.samples = samples_.size();
    sent.blobs = crowd_.size();
    const double ids = static_cast<double>(sent.entered + sent.left + sent.samples);
    const double positions = static_cast<double>(sent.entered + sent.samples + w.player_positions().size());
    sent.uuid_bytes = static_cast<double>(sent.bytes.header) + 8.0 /* seq */ + 8.0 /* digest */ + ids * kUuidBytes +
                      positions * kFloatPositionBytes + static_cast<double>(sent.blobs) * kUuidCrowdBytes;
    return sent;
}

}  // namespace vantage::play
