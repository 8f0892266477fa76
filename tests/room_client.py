#!/usr/bin/env python3
"""A room client in another language, written from playgrounds/common/room_wire.md alone.

It proves the document is enough: the protocol number, limits and message types come from
the document itself (its Constants block and message tables), never from the C++ headers.
It starts a horde room (the vantage_serve binary given on the command line), joins it as a
player, plays for a few seconds (steering, pings, a truth query about the enemies its frames
named, a report, a command it is not allowed to give), decodes every message it receives,
the horde frame's header included (and the DeltaFrame inside it, per core/docs/delta.md),
then checks that a client of a newer protocol is told the room is older.

    python3 tests/room_client.py build/native-release/playgrounds/room/vantage_serve

Exit status 0 when every check holds; each failure is printed. Needs python3-websockets.
"""
import asyncio
import math
import os
import re
import signal
import subprocess
import sys
import time

import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENT = os.path.join(ROOT, 'playgrounds', 'common', 'room_wire.md')
PLAY_SECONDS = 3.0


# --- what the document says ------------------------------------------------------------------

def read_document(path):
    """The Constants block (name: value) and every message type (name -> byte)."""
    constants, types = {}, {}
    in_constants = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('## '):
                in_constants = line.strip() == '## Constants'
                continue
            m = re.match(r'^    ([a-z_]+): ([0-9.]+)\s*$', line)
            if in_constants and m:
                constants[m.group(1)] = float(m.group(2)) if '.' in m.group(2) else int(m.group(2))
            m = re.match(r'^\| (?:`.` )?0x([0-9a-fA-F]{2}) \| (\w+) \|', line)
            if m:
                types[m.group(2)] = int(m.group(1), 16)
    return constants, types


DOC, TYPES = read_document(DOCUMENT)
NAMES = {v: k for k, v in TYPES.items()}


# --- primitives (the document's table) ------------------------------------------------------

class WireError(Exception):
    pass


class Reader:
    def __init__(self, data):
        self.data, self.at = bytes(data), 0

    def u8(self):
        if self.at >= len(self.data):
            raise WireError('truncated')
        self.at += 1
        return self.data[self.at - 1]

    def u16(self):  # little-endian
        return self.u8() | self.u8() << 8

    def i16(self):
        v = self.u16()
        return v - 0x10000 if v >= 0x8000 else v

    def u64(self):
        return sum(self.u8() << (8 * i) for i in range(8))

    def varint(self):
        v, shift, start = 0, 0, self.at
        while True:
            b = self.u8()
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                break
            if shift >= 70:
                raise WireError('varint too long')
        if self.at - start > 1 and self.data[self.at - 1] == 0:
            raise WireError('varint not in its shortest form')
        return v

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def string(self, limit):
        n = self.varint()
        if n > limit:
            raise WireError('string over its limit')
        s = self.data[self.at:self.at + n]
        if len(s) != n:
            raise WireError('truncated')
        self.at += n
        if any(c < 0x20 or c == 0x7f for c in s):
            raise WireError('a control character')
        try:
            return s.decode('utf-8')
        except UnicodeDecodeError:
            raise WireError('not UTF-8') from None

    def fixed2(self, step):
        return (self.zigzag() * step, self.zigzag() * step)

    def reading(self, scale):
        q = self.varint()
        return None if q == 0 else (q - 1) / scale

    def setting(self, scale):
        return self.varint() / scale

    def take(self, n):
        s = self.data[self.at:self.at + n]
        if len(s) != n:
            raise WireError('truncated')
        self.at += n
        return s

    def end(self):
        if self.at != len(self.data):
            raise WireError('%d bytes left over' % (len(self.data) - self.at))


class Writer:
    def __init__(self, type_name):
        self.out = bytearray([TYPES[type_name]])

    def u8(self, v):
        self.out.append(v & 0xff)
        return self

    def varint(self, v):
        while True:
            b = v & 0x7f
            v >>= 7
            self.out.append(b | (0x80 if v else 0))
            if not v:
                return self

    def string(self, s):
        data = s.encode('utf-8')
        self.varint(len(data))
        self.out += data
        return self

    def reading(self, v, scale):
        return self.varint(0 if v is None else round(v * scale) + 1)

    def bytes(self):
        return bytes(self.out)


def hello(protocol, name):
    return Writer('Hello').varint(protocol).string('').string('horde').string(name).bytes()


# --- decoders, one per message a player can be sent ---------------------------------------------

def decode_welcome(r):
    m = {'protocol': r.varint(), 'build': r.string(DOC['max_build_bytes']),
         'playground': r.string(DOC['max_playground_bytes']), 'seat': r.varint(), 'seats': r.varint(),
         'tick_hz': r.varint(), 'settings': r.string(1024)}
    if not m['seat'] < m['seats'] <= 256:
        raise WireError('seat out of range')
    return m


def decode_text(r):
    return r.string(DOC['max_reason_bytes'])


def decode_pong(r):
    return {'client_ms': r.varint(), 'server_ms': r.varint()}


def decode_truth(r):
    m = {'id': r.varint(), 'server_ms': r.varint()}
    n = r.varint()
    if n > DOC['max_truth_keys']:
        raise WireError('too many keys')
    bitmap = r.take((n + 7) // 8)
    alive = [bool(bitmap[i // 8] >> (i % 8) & 1) for i in range(n)]
    m['alive'] = alive
    m['positions'] = [r.fixed2(DOC['truth_step']) for a in alive if a]
    return m


def decode_roster(r):
    return [(r.varint(), r.string(DOC['max_name_bytes'])) for _ in range(r.varint())]


def decode_key_list(r):
    keys, index = [], 0
    for i in range(r.varint()):
        gap, generation = r.varint(), r.varint()
        index = gap if i == 0 else index + gap
        keys.append((index, generation))
    return keys


def decode_delta_header(data):
    """The DeltaFrame inside a horde frame, up to its entered keys (core/docs/delta.md)."""
    r = Reader(data)
    if r.u8() != 0x44:
        raise WireError('not a DeltaFrame')
    flags = r.u8()
    seq = r.varint()
    if flags & 2:
        r.varint()  # baseline back
    return {'seq': seq, 'full': bool(flags & 1), 'digest': r.u64(), 'entered': decode_key_list(r),
            'left': decode_key_list(r)}


def decode_frame(r):
    m = {'time_ms': r.varint()}
    m['delta'] = decode_delta_header(r.take(r.varint()))
    players = r.varint()
    if players > 128:
        raise WireError('too many players')
    m['players'] = [r.fixed2(1 / 16) for _ in range(players)]
    return m  # the entered positions, corrections and crowd follow (horde_wire.hpp)


DECODERS = {'Welcome': decode_welcome, 'Refuse': decode_text, 'Error': decode_text, 'Pong': decode_pong,
            'Truth': decode_truth, 'Roster': decode_roster, 'Frame': decode_frame}
WHOLE = {'Welcome', 'Refuse', 'Error', 'Pong', 'Truth', 'Roster'}  # decoded to their last byte


def decode(data):
    name = NAMES.get(data[0])
    if name not in DECODERS:
        raise WireError('a player is never sent type 0x%02x (%s)' % (data[0], name))
    r = Reader(data)
    r.u8()
    value = DECODERS[name](r)
    if name in WHOLE:
        r.end()
    return name, value


# --- the session ---------------------------------------------------------------------------------

def start_room(serve):
    room = subprocess.Popen([serve, 'horde', '--port', '0', '--seats', '4', '--set', 'enemies=600'],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 20
    while time.time() < deadline:
        line = room.stdout.readline()
        m = re.search(r'Vantage room: http://([0-9.]+):(\d+)/', line)
        if m:
            return room, 'ws://%s:%s/ws' % (m.group(1), m.group(2))
        if not line and room.poll() is not None:
            break
    room.kill()
    raise SystemExit('room_client: vantage_serve printed no URL')


async def play(url, failures):
    seen = {}
    frames, pongs, truths, errors = [], [], [], []
    held = {}  # index -> generation, from the frames' entered keys
    async with websockets.connect(url, max_size=1 << 20, compression=None) as ws:
        await ws.send(hello(DOC['protocol'], 'python'))
        name, welcome = decode(await asyncio.wait_for(ws.recv(), 3))
        if name != 'Welcome':
            failures.append('first answer is %s %r, not a Welcome' % (name, welcome))
            return seen
        if welcome['protocol'] != DOC['protocol'] or welcome['playground'] != 'horde':
            failures.append('welcome names protocol %d / %s' % (welcome['protocol'], welcome['playground']))
        seen['Welcome'] = 1
        start = time.monotonic()
        next_input = next_ping = 0.0
        seq = 0
        asked = commanded = reported = False
        while time.monotonic() - start < PLAY_SECONDS:
            t = time.monotonic() - start
            if t >= next_input:  # steer in a slow circle
                seq += 1
                x, y = math.cos(t), math.sin(t)
                await ws.send(Writer('Input').varint(seq).u8(0).u8(round(x * 127) & 0xff)
                              .u8(round(y * 127) & 0xff).bytes())
                next_input = t + 0.1
            if t >= next_ping:
                await ws.send(Writer('Ping').varint(int(t * 1000)).bytes())
                next_ping = t + 0.5
            if not asked and len(held) >= 8 and t > 1.0:
                keys = sorted(held.items())[:64]
                w = Writer('TruthQuery').varint(7).varint(len(keys))
                previous = 0
                for i, (index, generation) in enumerate(keys):
                    w.varint(index if i == 0 else index - previous).varint(generation)
                    previous = index
                await ws.send(w.bytes())
                asked = True
            if not reported and t > 0.5:
                await ws.send(Writer('Report').reading(12.5, 10).reading(None, 100).varint(0)
                              .reading(0, 10).reading(1.25, 100).u8(0).reading(40, 10)
                              .reading(None, 10).varint(0).bytes())
                reported = True
            if not commanded and t > 0.5:
                await ws.send(Writer('Command').u8(4).varint(0).bytes())  # kick seat 0: not ours to give
                commanded = True
            try:
                data = await asyncio.wait_for(ws.recv(), 0.02)
            except asyncio.TimeoutError:
                continue
            try:
                name, value = decode(data)
            except WireError as e:
                failures.append('type 0x%02x did not decode: %s' % (data[0], e))
                continue
            seen[name] = seen.get(name, 0) + 1
            if name == 'Frame':
                frames.append(value)
                for index, generation in value['delta']['entered']:
                    held[index] = generation
                for index, _ in value['delta']['left']:
                    held.pop(index, None)
            elif name == 'Pong':
                pongs.append(value)
            elif name == 'Truth':
                truths.append(value)
            elif name == 'Error':
                errors.append(value)
            elif name == 'Refuse':
                failures.append('refused while playing: ' + value)
    if len(frames) < 20:
        failures.append('only %d frames in %.0f s' % (len(frames), PLAY_SECONDS))
    elif not any(f['delta']['entered'] for f in frames):
        failures.append('no frame entered an enemy')
    if not pongs or pongs[0]['client_ms'] > PLAY_SECONDS * 1000:
        failures.append('no pong echoed a ping')
    if not truths or truths[0]['id'] != 7 or not any(truths[0]['alive']):
        failures.append('the truth query was not answered about living enemies: %r' % truths[:1])
    if errors != ['only the teacher can change room settings']:
        failures.append('errors: %r' % errors)
    seen['_frames'] = len(frames)
    return seen


async def newer_client(url, failures):
    async with websockets.connect(url, compression=None) as ws:
        await ws.send(hello(DOC['protocol'] + 1, 'future'))
        name, reason = decode(await asyncio.wait_for(ws.recv(), 3))
        if name != 'Refuse' or not reason.startswith('the room is older than this page'):
            failures.append('a newer client was told %s %r' % (name, reason))


def main():
    if len(sys.argv) != 2:
        raise SystemExit('usage: room_client.py PATH/TO/vantage_serve')
    for key in ('protocol', 'max_build_bytes', 'max_playground_bytes', 'max_name_bytes', 'max_reason_bytes',
                'max_truth_keys', 'truth_step'):
        if key not in DOC:
            raise SystemExit('room_client: room_wire.md has no constant ' + key)
    room, url = start_room(sys.argv[1])
    failures = []
    try:
        seen = asyncio.run(play(url, failures))
        asyncio.run(newer_client(url, failures))
    finally:
        room.send_signal(signal.SIGINT)
        try:
            room.wait(10)
        except subprocess.TimeoutExpired:
            room.kill()
    kinds = ', '.join('%s %d' % (k, v) for k, v in sorted(seen.items()) if not k.startswith('_'))
    print('room_client.py: protocol %d from room_wire.md; received %s' % (DOC['protocol'], kinds))
    for f in failures:
        print('  FAILED: ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
