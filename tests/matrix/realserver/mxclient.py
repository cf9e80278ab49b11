"""A small Matrix client that encrypts, for playing illegald on a real homeserver.

One Client is one user on one device: it registers (or logs in), uploads its device keys
and one-time keys, syncs, joins the rooms it is invited to, decrypts what it receives
(Olm to-device messages, Megolm room events) and sends encrypted messages, sharing its
Megolm session with every device of every member of the room, unverified ones included,
as Element does by default. It evaluates the spec's default push rules on each decrypted
event, as a client does for encrypted rooms, and counts what would notify.

Debian's python3-olm (libolm's own bindings) and python3-requests; run with /usr/bin/python3.
"""
import json
import threading
import time

import olm
import requests


def canonical(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def signable(obj):
    return canonical({k: v for k, v in obj.items() if k not in ("signatures", "unsigned")})


class Client:
    def __init__(self, hs, name, password="illegald-test-pw", log=None):
        self.hs = hs.rstrip("/")
        self.name = name
        self.password = password
        self.http = requests.Session()
        self.token = None
        self.user = None
        self.device = None
        self.since = None
        self.lock = threading.RLock()
        self.log = log or (lambda *a: None)
        self.acct = olm.Account()
        self.olm = {}        # their curve25519 -> [olm.Session]
        self.inbound = {}    # megolm session id -> (InboundGroupSession, room, sender)
        self.outbound = {}   # room -> OutboundGroupSession
        self.shared = {}     # room -> {(user, device)}
        self.devices = {}    # user -> {device: {"curve", "ed"}}
        self.rooms = {}      # room id -> {"members": set, "encrypted": bool}
        self.events = []     # every event received, decrypted where possible
        self.undecryptable = []
        self.notified = []   # events that would notify by the default push rules
        self.displayname = name
        self.direct_invites = set()
        self.stop = False

    # ---- HTTP ----

    def call(self, method, path, body=None, params=None, auth=True, ok=(200,)):
        headers = {"Authorization": "Bearer " + self.token} if auth and self.token else {}
        for attempt in range(20):
            r = self.http.request(method, self.hs + "/_matrix/client/v3" + path, json=body,
                                  params=params, headers=headers, timeout=60)
            if r.status_code == 429:
                time.sleep(r.json().get("retry_after_ms", 500) / 1000)
                continue
            break
        if r.status_code not in ok:
            raise RuntimeError("%s %s: %s %s" % (method, path, r.status_code, r.text[:300]))
        return r.json()

    def register(self):
        body = {"username": self.name, "password": self.password,
                "auth": {"type": "m.login.dummy"}, "inhibit_login": False,
                "initial_device_display_name": self.name + "-script"}
        r = self.http.post(self.hs + "/_matrix/client/v3/register", json=body, timeout=30)
        if r.status_code == 400 and "M_USER_IN_USE" in r.text:
            r = self.http.post(self.hs + "/_matrix/client/v3/login", timeout=30, json={
                "type": "m.login.password", "password": self.password,
                "identifier": {"type": "m.id.user", "user": self.name}})
        r.raise_for_status()
        j = r.json()
        self.token, self.user, self.device = j["access_token"], j["user_id"], j["device_id"]
        return self

    # ---- keys ----

    def upload_keys(self):
        ik = self.acct.identity_keys
        dk = {"user_id": self.user, "device_id": self.device,
              "algorithms": ["m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"],
              "keys": {"curve25519:" + self.device: ik["curve25519"],
                       "ed25519:" + self.device: ik["ed25519"]}}
        dk["signatures"] = {self.user: {"ed25519:" + self.device: self.acct.sign(signable(dk))}}
        self.acct.generate_one_time_keys(20)
        otks = {}
        for kid, key in self.acct.one_time_keys["curve25519"].items():
            o = {"key": key}
            o["signatures"] = {self.user: {"ed25519:" + self.device: self.acct.sign(signable(o))}}
            otks["signed_curve25519:" + kid] = o
        self.call("POST", "/keys/upload", {"device_keys": dk, "one_time_keys": otks})
        self.acct.mark_keys_as_published()

    def query(self, users):
        users = [u for u in users if u not in self.devices]
        if not users:
            return
        r = self.call("POST", "/keys/query", {"device_keys": {u: [] for u in users}})
        for u in users:
            devs = {}
            for d, keys in r.get("device_keys", {}).get(u, {}).items():
                curve = keys["keys"].get("curve25519:" + d)
                ed = keys["keys"].get("ed25519:" + d)
                sig = keys.get("signatures", {}).get(u, {}).get("ed25519:" + d)
                try:
                    olm.ed25519_verify(ed, signable(keys), sig)
                except Exception:
                    self.log(self.name, "bad device signature", u, d)
                    continue
                devs[d] = {"curve": curve, "ed": ed}
            self.devices[u] = devs

    def olm_session(self, user, device):
        curve = self.devices[user][device]["curve"]
        if self.olm.get(curve):
            return self.olm[curve][0]
        r = self.call("POST", "/keys/claim",
                      {"one_time_keys": {user: {device: "signed_curve25519"}}})
        keys = r.get("one_time_keys", {}).get(user, {}).get(device, {})
        for kid, k in keys.items():
            try:
                olm.ed25519_verify(self.devices[user][device]["ed"], signable(k),
                                   k["signatures"][user]["ed25519:" + device])
            except Exception:
                continue
            s = olm.OutboundSession(self.acct, curve, k["key"])
            self.olm.setdefault(curve, []).insert(0, s)
            return s
        return None

    def olm_encrypt(self, user, device, type_, content):
        s = self.olm_session(user, device)
        if not s:
            return None
        dev = self.devices[user][device]
        payload = {"type": type_, "content": content, "sender": self.user,
                   "sender_device": self.device, "recipient": user,
                   "recipient_keys": {"ed25519": dev["ed"]},
                   "keys": {"ed25519": self.acct.identity_keys["ed25519"]}}
        m = s.encrypt(json.dumps(payload))
        return {"algorithm": "m.olm.v1.curve25519-aes-sha2",
                "sender_key": self.acct.identity_keys["curve25519"],
                "ciphertext": {dev["curve"]: {"type": m.message_type, "body": m.ciphertext}}}

    # ---- sending ----

    def members(self, room):
        r = self.call("GET", "/rooms/%s/joined_members" % room)
        return list(r["joined"].keys())

    def send(self, room, type_, content):
        with self.lock:
            txn = "t%d.%f" % (threading.get_ident(), time.time())
            if self.rooms.get(room, {}).get("encrypted") and type_ != "m.reaction":
                content = self.encrypt(room, type_, content)
                type_ = "m.room.encrypted"
            return self.call("PUT", "/rooms/%s/send/%s/%s" % (room, type_, txn), content)["event_id"]

    def encrypt(self, room, type_, content):
        out = self.outbound.get(room)
        if not out:
            out = self.outbound[room] = olm.OutboundGroupSession()
            self.shared[room] = set()
            # as clients do: its own messages decrypt with its own key
            self.inbound[out.id] = (olm.InboundGroupSession(out.session_key), room, self.user)
        users = self.members(room)
        self.query(users)
        messages = {}
        for u in users:
            for d in self.devices.get(u, {}):
                if (u, d) in self.shared[room] or (u == self.user and d == self.device):
                    continue
                c = self.olm_encrypt(u, d, "m.room_key", {
                    "algorithm": "m.megolm.v1.aes-sha2", "room_id": room,
                    "session_id": out.id, "session_key": out.session_key})
                if c:
                    messages.setdefault(u, {})[d] = c
                    self.shared[room].add((u, d))
        if messages:
            self.call("PUT", "/sendToDevice/m.room.encrypted/k%f" % time.time(),
                      {"messages": messages})
        rel = content.pop("m.relates_to", None)
        ct = out.encrypt(json.dumps({"type": type_, "content": content, "room_id": room}))
        enc = {"algorithm": "m.megolm.v1.aes-sha2",
               "sender_key": self.acct.identity_keys["curve25519"], "ciphertext": ct,
               "session_id": out.id, "device_id": self.device}
        if rel:
            enc["m.relates_to"] = rel
        return enc

    def say(self, room, text):
        return self.send(room, "m.room.message", {"msgtype": "m.text", "body": text})

    def react(self, room, event_id, key):
        return self.send(room, "m.reaction", {"m.relates_to": {
            "rel_type": "m.annotation", "event_id": event_id, "key": key}})

    def create_room(self, invite=(), direct=False):
        body = {"preset": "private_chat", "invite": list(invite)}
        if direct:
            body.update({"preset": "trusted_private_chat", "is_direct": True})
        room = self.call("POST", "/createRoom", body)["room_id"]
        return room

    def delete_device(self, device):
        """Deletes one of this user's devices (and so its access tokens and keys), as a sign-out
        from another session does; the password answers the interactive auth."""
        r = self.call("DELETE", "/devices/" + device, {}, ok=(200, 401))
        if "session" in r:
            self.call("DELETE", "/devices/" + device, {"auth": {
                "type": "m.login.password", "session": r["session"], "password": self.password,
                "identifier": {"type": "m.id.user", "user": self.user}}})

    def invite(self, room, user):
        self.call("POST", "/rooms/%s/invite" % room, {"user_id": user})

    def set_power(self, room, user, level):
        pl = self.call("GET", "/rooms/%s/state/m.room.power_levels/" % room)
        pl.setdefault("users", {})[user] = level
        self.call("PUT", "/rooms/%s/state/m.room.power_levels/" % room, pl)

    # ---- receiving ----

    def to_device(self, ev):
        if ev.get("type") != "m.room.encrypted":
            return
        c = ev["content"]
        mine = c.get("ciphertext", {}).get(self.acct.identity_keys["curve25519"])
        if not mine:
            return
        sk = c["sender_key"]
        msg = (olm.OlmPreKeyMessage if mine["type"] == 0 else olm.OlmMessage)(mine["body"])
        plain = None
        for s in self.olm.get(sk, []):
            try:
                if mine["type"] == 0 and not s.matches(msg, sk):
                    continue
                plain = s.decrypt(msg)
                break
            except Exception:
                continue
        if plain is None and mine["type"] == 0:
            s = olm.InboundSession(self.acct, msg, sk)
            self.acct.remove_one_time_keys(s)
            self.olm.setdefault(sk, []).insert(0, s)
            plain = s.decrypt(msg)
        if plain is None:
            self.log(self.name, "cannot decrypt a to-device message from", ev["sender"])
            return
        p = json.loads(plain)
        assert p["sender"] == ev["sender"] and p["recipient"] == self.user
        assert p["recipient_keys"]["ed25519"] == self.acct.identity_keys["ed25519"]
        if p["type"] == "m.room_key":
            rk = p["content"]
            s = olm.InboundGroupSession(rk["session_key"])
            self.inbound[rk["session_id"]] = (s, rk["room_id"], ev["sender"])

    def decrypt(self, room, ev):
        c = ev.get("content", {})
        entry = self.inbound.get(c.get("session_id"))
        if not entry:
            return None
        s, r, sender = entry
        if r != room or sender != ev["sender"]:
            return None
        plain, index = s.decrypt(c["ciphertext"])
        p = json.loads(plain)
        assert p["room_id"] == room
        out = dict(ev)
        out["type"] = p["type"]
        out["content"] = p["content"]
        if "m.relates_to" in c:
            out["content"]["m.relates_to"] = c["m.relates_to"]
        out["index"] = index
        out["session"] = c["session_id"]
        out["encrypted"] = True
        if "org.illegald.txn" in c:  # the bot's mark on the envelope, in the clear
            out["content"]["org.illegald.txn"] = c["org.illegald.txn"]
        return out

    def notifies(self, room, ev):
        """The spec's default push rules (override and content rules first), on a decrypted
        event; with intentional mentions as newer servers and clients evaluate them."""
        if ev["sender"] == self.user or ev["type"] != "m.room.message":
            return False
        c = ev["content"]
        if c.get("msgtype") == "m.notice":
            return False  # .m.rule.suppress_notices
        if self.user in c.get("m.mentions", {}).get("user_ids", []):
            return True  # .m.rule.is_user_mention
        body = c.get("body", "")
        local = self.user[1:].split(":")[0]
        if self.displayname.lower() in body.lower() or local.lower() in body.lower():
            return True  # .m.rule.contains_display_name, .m.rule.contains_user_name
        members = len(self.rooms.get(room, {}).get("members", ()))
        return members == 2  # .m.rule.room_one_to_one (messages in a DM notify)

    def handle(self, room, ev):
        if ev.get("type") == "m.room.encrypted":
            d = self.decrypt(room, ev)
            if d is None:
                self.undecryptable.append((room, ev))
                return
            ev = d
        ev["room_id"] = room
        ev["room_encrypted"] = self.rooms.get(room, {}).get("encrypted", False)
        with self.lock:
            self.events.append(ev)
        if self.notifies(room, ev):
            self.notified.append(ev)

    def sync_once(self, timeout=2000):
        params = {"timeout": timeout}
        if self.since:
            params["since"] = self.since
        else:
            params["filter"] = json.dumps({"room": {"timeline": {"limit": 0}}})
        r = self.call("GET", "/sync", params=params)
        with self.lock:
            # a user whose devices changed is queried again before the next message, and a
            # new device gets the room key then, as clients do
            for u in r.get("device_lists", {}).get("changed", []):
                self.devices.pop(u, None)
            for ev in r.get("to_device", {}).get("events", []):
                try:
                    self.to_device(ev)
                except Exception as e:  # a test client: say it, go on
                    self.log(self.name, "to-device error", repr(e))
            for room, inv in r.get("rooms", {}).get("invite", {}).items():
                self.call("POST", "/rooms/%s/join" % room, {})
            for room, j in r.get("rooms", {}).get("join", {}).items():
                info = self.rooms.setdefault(room, {"members": set(), "encrypted": False})
                evs = j.get("state", {}).get("events", []) + j.get("timeline", {}).get("events", [])
                for ev in evs:
                    if ev.get("type") == "m.room.encryption":
                        info["encrypted"] = True
                    if ev.get("type") == "m.room.member":
                        if ev["content"].get("membership") == "join":
                            info["members"].add(ev["state_key"])
                        else:
                            info["members"].discard(ev["state_key"])
                for ev in j.get("timeline", {}).get("events", []):
                    if self.since and "state_key" not in ev:
                        self.handle(room, ev)
            # undecryptable events may decrypt once their key came
            retry, self.undecryptable = self.undecryptable, []
            for r2, ev in retry:
                self.handle(r2, ev)
        self.since = r["next_batch"]

    def run(self):
        while not self.stop:
            try:
                self.sync_once(timeout=1000)
            except Exception as e:
                self.log(self.name, "sync error", repr(e))
                time.sleep(1)

    def start(self):
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def texts(self, room=None, since=0):
        with self.lock:
            return [(i, e) for i, e in enumerate(self.events) if i >= since and
                    (room is None or e["room_id"] == room) and e["type"] == "m.room.message"]
