#!/usr/bin/python3
"""Plays a whole 4-player game of illegald on a real homeserver with players whose client
encrypts, and checks what they saw.

    /usr/bin/python3 tests/matrix/realserver/play.py ILLEGALD WORKDIR [--mode all|invite|off]
                                                     [--new-device]

The homeserver is a Synapse on http://127.0.0.1:8008 with open registration, as
/work/shared/realservers/synapse/setup.sh starts it (ENCRYPT_BY_DEFAULT=all or invite).
mode all: the table is a private room (encrypted by the server), so is every direct room.
mode invite: the table is a public room (not encrypted) whose host turns encryption on in
the middle of the game; the direct rooms are encrypted by the server.
mode off: a server that encrypts nothing; no room is encrypted.

The daemon runs with a password login; it is killed with SIGKILL during the first dealing
session and started again on its store; it is killed again once the first drop was grabbed,
and its device (so its access token) deleted before it starts again, as a sign-out from
another session does: it logs in anew with the same device id (with --new-device, its config
names another device id, so the new login is a new device with new keys). Alice hosts and plays, Bob,
Carol and Dave play (Dave opened his direct room with the bot before the game), Mona is a
moderator who does not play. Everything each one receives is decrypted and
written to WORKDIR/seen-<name>.json; the checks at the end say what failed.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mxclient import Client  # noqa: E402

HS = "http://127.0.0.1:8008"
BOT_PASSWORD = "illegal-bot-password"


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def wait(what, pred, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.3)
    raise RuntimeError("timed out waiting for " + what)


def find(client, room, pattern, since=0):
    """The first decrypted message of room (None: any room) whose body matches, from since."""
    for i, e in client.texts(room, since):
        m = re.search(pattern, e["content"].get("body", ""))
        if m and e["sender"].startswith("@illegal:"):
            return e, m
    return None


class Daemon:
    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        self.conf = os.path.join(work, "illegald.conf")
        with open(os.path.join(work, "bot-password"), "w") as f:
            f.write(BOT_PASSWORD)
        with open(self.conf, "w") as f:
            f.write("[store]\npath = %s/illegald.db\n[log]\nlevel = info\n[matrix]\n"
                    "homeserver = %s\nuser_id = @illegal:localhost\n"
                    "password_file = %s/bot-password\ndevice_id = ILLEGALD\n"
                    % (work, HS, work))
        self.proc = None
        self.runs = 0

    def new_device(self, device):
        with open(self.conf) as f:
            text = f.read()
        with open(self.conf, "w") as f:
            f.write(re.sub(r"device_id = \w+", "device_id = " + device, text))

    def start(self):
        self.runs += 1
        out = open(os.path.join(self.work, "illegald-%d.log" % self.runs), "w")
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        self.proc = subprocess.Popen([self.binary, "--config", self.conf], stdout=out,
                                     stderr=subprocess.STDOUT, env=env)
        log("illegald started, pid", self.proc.pid)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        log("illegald killed with SIGKILL")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)


def dm_room(client):
    """The room the bot writes this player's private messages in."""
    hit = find(client, None, r"Your roles")
    return hit[0]["room_id"] if hit else None


def bot_device_keys(bot, device="ILLEGALD"):
    """The identity keys the server holds for the daemon's device, without the device id."""
    r = bot.call("POST", "/keys/query", {"device_keys": {bot.user: [device]}})
    keys = r.get("device_keys", {}).get(bot.user, {}).get(device, {}).get("keys", {})
    return sorted((k.split(":")[0], v) for k, v in keys.items())


def posted_once(everyone):
    """Every event of the bot was posted once: one event a transaction mark, one reaction of
    the bot a key on a message; and none in the clear into an encrypted room."""
    failures = []
    marks, reactions, clear, total = {}, {}, 0, 0
    for c in everyone:
        for e in c.events:
            if not e["sender"].startswith("@illegal:") or "state_key" in e:
                continue
            total += 1
            content = e.get("content", {})
            rel = content.get("m.relates_to", {})
            if e["type"] == "m.reaction":
                k = (e["room_id"], rel.get("event_id"), rel.get("key"))
                reactions.setdefault(k, set()).add(e["event_id"])
            txn = content.get("org.illegald.txn")
            if txn:
                marks.setdefault((e["room_id"], txn), set()).add(e["event_id"])
            if e["room_encrypted"] and not e.get("encrypted"):
                clear += 1
                failures.append("%s saw a clear %s from the bot in an encrypted room" %
                                (c.name, e["type"]))
    twice = [k for k, v in marks.items() if len(v) > 1]
    twice_r = [k for k, v in reactions.items() if len(v) > 1]
    log("the bot's events seen: %d; distinct transaction marks %d, posted twice %d; "
        "reactions %d, twice %d; in the clear in an encrypted room %d" % (
            total, len(marks), len(twice), len(reactions), len(twice_r), clear))
    for k in twice:
        failures.append("posted %d times: transaction %s in %s" % (len(marks[k]), k[1], k[0]))
    for k in twice_r:
        failures.append("reaction %s on %s posted %d times" % (k[2], k[1], len(reactions[k])))
    return failures


def main():
    binary, work = sys.argv[1], sys.argv[2]
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "all"
    new_device = "--new-device" in sys.argv
    os.makedirs(work, exist_ok=True)
    tag = str(int(time.time()) % 100000)
    bot = Client(HS, "illegal", BOT_PASSWORD).register()
    names = ["alice", "bob", "carol", "dave"]
    players = {n: Client(HS, n + tag, log=log).register() for n in names}
    mona = Client(HS, "mona" + tag, log=log).register()
    everyone = list(players.values()) + [mona]
    for c in everyone:
        c.upload_keys()
        c.start()
    alice, bob, carol, dave = (players[n] for n in names)
    daemon = Daemon(binary, work)
    daemon.start()
    # Dave opens his direct chat with the bot himself, as a player does from Element
    dave_dm = dave.create_room(invite=[bot.user], direct=True)
    wait("the bot in Dave's direct room", lambda: len(dave.members(dave_dm)) == 2, 180)
    log("dave's direct room", dave_dm)

    preset = "public_chat" if mode == "invite" else "private_chat"
    table = alice.call("POST", "/createRoom", {
        "preset": preset, "name": "Illegal table " + tag,
        "invite": [bot.user] + [c.user for c in everyone if c is not alice]})["room_id"]
    log("table", table, "mode", mode)
    alice.set_power(table, mona.user, 50)
    wait("everyone in the table", lambda: len(alice.members(table)) == 6, 180)
    wait("the table's state", lambda: all(table in c.rooms for c in everyone))
    encrypted = alice.rooms[table]["encrypted"]
    log("table encrypted from the start:", encrypted)

    alice.say(table, "!illegal new")
    wait("the lobby", lambda: find(alice, table, r"Illegal game"))
    alice.say(table, "!illegal set preset quick")
    for c in (alice, bob, carol, dave):
        c.say(table, "!illegal join")
    wait("4 players", lambda: find(alice, table, r"Players 4/8"))
    alice.say(table, "!illegal start")
    for c in players.values():
        wait(c.name + "'s hand", lambda c=c: find(c, None, r"Your hand"), 180)
    dms = {n: dm_room(c) for n, c in players.items()}
    log("direct rooms", dms)
    hand = find(alice, dms["alice"], r"Your hand: (\d+) ([A-Za-z ]+?)[,.]")[1]
    card = hand.group(2).strip().lower()
    mark = len(bob.events)
    alice.say(dms["alice"], "offer %s 1 %s for nothing" % (bob.user[1:].split(":")[0], card))
    offer = wait("bob's offer", lambda: find(bob, dms["bob"], r"accept (\d+)", mark))
    bob.say(dms["bob"], "accept " + offer[1].group(1))
    wait("the trade", lambda: find(alice, dms["alice"], r"accepted|accepts"))
    mona.say(table, "!illegal pause")
    wait("the pause", lambda: find(alice, table, r"paused"))
    if mode == "invite":
        alice.call("PUT", "/rooms/%s/state/m.room.encryption/" % table,
                   {"algorithm": "m.megolm.v1.aes-sha2"})
        for c in everyone:
            c.rooms[table]["encrypted"] = True
        log("encryption turned on in the table")
    mona.say(table, "!illegal resume")
    wait("the resume", lambda: find(alice, table, r"resumes"))
    time.sleep(2)
    daemon.kill9()
    time.sleep(2)
    daemon.start()
    mark_status = len(alice.events)
    alice.say(table, "!illegal status")
    wait("status after the restart", lambda: find(alice, table, r"Game g\d+", mark_status), 120)

    # the drops: each player grabs a different card by reacting as the bot did
    grabbed = set()
    voted = set()
    relogged = False
    keys_before = bot_device_keys(bot)
    end = time.time() + 1500
    while time.time() < end and not find(alice, table, r"Game over"):
        if grabbed and not relogged:
            relogged = True
            time.sleep(2)
            daemon.kill9()
            bot.delete_device("ILLEGALD")
            log("the bot's device ILLEGALD deleted (its access token with it)")
            if new_device:
                daemon.new_device("ILLEGALD2")
                log("the daemon's config names device ILLEGALD2")
            daemon.start()
        for i, e in alice.texts(table):
            body = e["content"].get("body", "")
            if e["sender"].startswith("@illegal:") and body.startswith("Drop") and \
                    e["event_id"] not in grabbed and "Drop" in body:
                reactions = [x for x in alice.events if x.get("type") == "m.reaction"
                             and x["content"]["m.relates_to"]["event_id"] == e["event_id"]
                             and x["sender"].startswith("@illegal:")]
                if len(reactions) >= 4:
                    grabbed.add(e["event_id"])
                    for c, r in zip((alice, bob, carol, dave), reactions):
                        c.react(table, e["event_id"], r["content"]["m.relates_to"]["key"])
        for n, c in players.items():
            for i, e in c.texts(dms[n]):
                body = e["content"].get("body", "")
                if "ballot" in body.lower() and e["event_id"] not in voted:
                    voted.add(e["event_id"])
                    other = [o for o in names if o != n][0]
                    c.say(dms[n], "vote " + players[other].user[1:].split(":")[0])
        time.sleep(1)
    result = wait("the result", lambda: find(alice, table, r"Game over"), 60)
    log("result:", result[0]["content"]["body"].splitlines()[0])
    time.sleep(5)
    daemon.stop()

    failures = []
    keys_after = bot_device_keys(bot, "ILLEGALD2" if new_device else "ILLEGALD")
    log("the bot's device keys before the new login: %s; after: %s" % (keys_before, keys_after))
    if not keys_after or (keys_after != keys_before) != new_device:
        failures.append("the bot's device has %s keys on the server after its new login" %
                        ("no" if not keys_after else "other" if not new_device else "the old"))
    if dms["dave"] != dave_dm:
        failures.append("Dave's private messages went to %s, not the room he opened" % dms["dave"])
    failures += posted_once(everyone)
    for c in everyone:
        with open(os.path.join(work, "seen-%s.json" % c.name), "w") as f:
            json.dump({"events": c.events, "undecryptable": [e for r, e in c.undecryptable],
                       "notified": c.notified}, f, indent=1)
        if c.undecryptable:
            failures.append("%s could not decrypt %d events" % (c.name, len(c.undecryptable)))
    # nothing secret at the table while players trade: no role, no hand (the Tribunal then
    # reveals suspect cards, which are roles, as the rules say)
    roles = {}
    for n, c in players.items():
        hit = find(c, dms[n], r"Dealer: (.+?) \(.*Buyer: (.+?) \(")
        roles[n] = [hit[1].group(1), hit[1].group(2)] if hit else []
    for i, e in alice.texts(table):
        body = e["content"].get("body", "")
        if "Dealing is over" in body or body.startswith("Game over"):
            break
        for n, rs in roles.items():
            for r in rs:
                if r in body:
                    failures.append("the table saw %s's role %s: %s" % (n, r, body[:80]))
        if "Your hand" in body or "Your roles" in body:
            failures.append("the table saw a hand: " + body[:80])
    # pings: the messages that ask a player to act notify; the others do not
    for n, c in players.items():
        pings = [e["content"].get("body", "").split("\n")[0][:50] for e in c.notified]
        log("%s: %d events decrypted; %d would notify: %s" % (
            n, len(c.events), len(c.notified), "; ".join(pings)))
        if not any("ballot" in p for p in pings):
            failures.append("%s got no ballot that notifies" % n)
    # what the homeserver itself counts as notifications (push rules applied to what it can read:
    # in an encrypted room every event notifies there, and the client decides once decrypted)
    for n, c in players.items():
        got = c.call("GET", "/notifications", params={"limit": 200})["notifications"]
        from_bot = [x["event"] for x in got if x["event"]["sender"].startswith("@illegal:")]
        kinds = {}
        for ev in from_bot:
            k = ev["content"].get("msgtype", ev["type"])
            kinds[k] = kinds.get(k, 0) + 1
        log("%s: the homeserver counts %d notifications from the bot: %s" % (n, len(from_bot), kinds))
    notices = [e for e in alice.events if e["sender"].startswith("@illegal:")
               and e.get("content", {}).get("msgtype") == "m.notice"]
    log("alice: %d notices from the bot, %d would notify" % (
        len(notices), len([e for e in alice.notified if e in notices])))
    # the rooms of this run the bot is in (its account may keep rooms of earlier runs)
    ours = {c.user for c in everyone}
    joined = [r for r in bot.call("GET", "/joined_rooms")["joined_rooms"]
              if ours & set(bot.call("GET", "/rooms/%s/joined_members" % r)["joined"])]
    log("the bot is in %d rooms of this game: %s" % (len(joined), ", ".join(sorted(joined))))
    if len(joined) != 5:
        failures.append("the bot is in %d rooms, not 5 (the table and four direct rooms)"
                        % len(joined))
    for c in everyone:
        c.stop = True
    if failures:
        for f in failures:
            log("FAIL", f)
        sys.exit(1)
    log("OK: a whole game, every message decrypted, nothing secret at the table")


if __name__ == "__main__":
    main()
