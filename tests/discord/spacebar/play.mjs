// play.mjs - plays illegald on a real Discord-compatible server (Spacebar, spacebarchat/server,
// with open registration, no captcha and rate limits off) on loopback, as its players would, without the Message
// Content intent: two games at once with one player at both tables, then a moderator-run event
// of two tables. Not part of `make test` (it needs Spacebar running); run by hand:
//
//   node tests/discord/spacebar/play.mjs build/bin/illegald
//
// SB_URL (default http://127.0.0.1:3001) is Spacebar's; the daemon's store, config and log go to
// a temporary directory that is printed. Needs Node 22 (fetch). Exits 0 when everything went as
// it should, 1 with the step that did not.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SB = process.env.SB_URL || "http://127.0.0.1:3001";
const API = `${SB}/api/v10`;
const DAEMON = process.argv[2] || "build/bin/illegald";
const RUN = Date.now().toString(36); // names of this run's accounts
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let step = "setting up";

function say(...a) {
    console.log(`[${((Date.now() - START) / 1000).toFixed(1)}s]`, ...a);
}
const START = Date.now();

async function api(token, method, path, body) {
    for (let attempt = 0; ; attempt++) {
        const res = await fetch(API + path, {
            method,
            headers: { Authorization: token, "Content-Type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (res.status === 429 && attempt < 5) {
            await sleep(1000);
            continue;
        }
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
        return text ? JSON.parse(text) : null;
    }
}

// Polls fn until it gives something (not undefined/false); fails after ms.
async function until(what, fn, ms = 30000) {
    const end = Date.now() + ms;
    for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await sleep(300);
    }
}

// ---- accounts, guild, bot ----

const users = {}; // name -> {name, id, token}
async function register(name) {
    const r = await api("", "POST", "/auth/register", {
        username: `${name}${RUN}`.slice(0, 30),
        email: `${name}.${RUN}@example.org`,
        password: "illegald-test-1",
        consent: true,
        date_of_birth: "1990-01-01",
    });
    const me = await api(r.token, "GET", "/users/@me");
    users[name] = { name, id: me.id, token: r.token, display: me.username };
    return users[name];
}

const g = {}; // guild, channels, bot
async function setUp() {
    const owner = await register("mod");
    for (const n of ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]) await register(n);
    const app = await api(owner.token, "POST", "/applications", { name: `illegald${RUN}` });
    g.app = app.id;
    const bot = await api(owner.token, "POST", `/applications/${app.id}/bot`);
    g.botToken = bot.token;
    g.botId = app.bot?.id || (await api(`Bot ${bot.token}`, "GET", "/users/@me")).id;
    const guild = await api(owner.token, "POST", "/guilds", { name: `illegal ${RUN}` });
    g.guild = guild.id;
    for (const c of ["table-1", "table-2", "hall"])
        g[c] = (await api(owner.token, "POST", `/guilds/${g.guild}/channels`, { name: c, type: 0 })).id;
    const invite = await api(owner.token, "POST", `/channels/${g.hall}/invites`, {});
    for (const u of Object.values(users)) if (u !== owner) await api(u.token, "POST", `/invites/${invite.code}`);
    await api(owner.token, "POST", `/oauth2/authorize?client_id=${g.app}`, {
        guild_id: g.guild,
        permissions: "85056",
        authorize: true,
    });
    say(`guild ${g.guild}, tables ${g["table-1"]} and ${g["table-2"]}, hall ${g.hall}, bot ${g.botId}`);
}

function startDaemon() {
    const dir = mkdtempSync(join(tmpdir(), "illegald-spacebar-"));
    writeFileSync(join(dir, "token"), g.botToken);
    writeFileSync(
        join(dir, "illegald.conf"),
        `[store]\npath = ${dir}/illegald.db\n[log]\nlevel = info\n` +
            `[game]\nreveal_seconds = 1\nsession_seconds = 600\ngrab_seconds = 600\n` +
            `debate_seconds = 600\nvote_seconds = 600\n[web]\nenabled = false\n` +
            `[discord]\ntoken_file = ${dir}/token\napplication_id = ${g.app}\n` +
            `api_url = ${API}\ngateway_url = ${SB.replace(/^http/, "ws")}\nguilds = ${g.guild}\n` +
            `message_content = off\n`,
    );
    const log = join(dir, "illegald.log");
    say(`daemon ${DAEMON}, its files in ${dir}`);
    const child = spawn("sh", ["-c", `exec "$0" --config "$1" --seed 7 2>"$2"`, DAEMON, join(dir, "illegald.conf"), log], {
        stdio: "ignore",
    });
    return { child, dir, log };
}

// ---- what players do and read ----

const mention = () => `<@${g.botId}>`;
const text = (m) => [m.content, ...(m.embeds || []).map((e) => e.description)].filter(Boolean).join("\n");
const controls = (m) => (m.components || []).flatMap((row) => row.components || []);
const control = (m, action) => controls(m).find((c) => (c.custom_id || "").endsWith(`#${action}`));

async function messages(who, channel) {
    return (await api(who.token, "GET", `/channels/${channel}/messages?limit=100`)).reverse();
}
// The bot's messages in channel, oldest first; only those after message `after` when given.
async function botMessages(who, channel, after) {
    return (await messages(who, channel)).filter(
        (m) => m.author?.id === g.botId && (!after || BigInt(m.id) > BigInt(after)),
    );
}
async function lastBot(who, channel, pred, after) {
    return (await botMessages(who, channel, after)).filter(pred).pop();
}
async function post(who, channel, content, replyTo) {
    const body = { content };
    if (replyTo) body.message_reference = { message_id: replyTo, channel_id: channel, guild_id: g.guild };
    return api(who.token, "POST", `/channels/${channel}/messages`, body);
}
const dms = {};
async function dm(who) {
    if (!dms[who.name]) dms[who.name] = (await api(who.token, "POST", "/users/@me/channels", { recipients: [g.botId] })).id;
    return dms[who.name];
}
let nonce = 1;
async function interact(who, channel, inGuild, type, data, messageId) {
    const body = { type, application_id: g.app, channel_id: channel, data, nonce: `${RUN}${nonce++}` };
    if (inGuild) body.guild_id = g.guild;
    if (messageId) body.message_id = messageId;
    await api(who.token, "POST", "/interactions", body);
}
// The slash command whose word is `word`, as the bot registered it (a command of its own, a
// subcommand, or one in a subcommand group), as a client sends it.
function commandData(word, options) {
    for (const c of g.commands) {
        const nested = (c.options || []).some((o) => o.type === 1 || o.type === 2);
        if (!nested && c.name === word) return { id: c.id, name: word, type: 1, options };
        for (const o of c.options || []) {
            if (o.type === 1 && o.name === word)
                return { id: c.id, name: c.name, type: 1, options: [{ name: word, type: 1, options }] };
            const sub = o.type === 2 && (o.options || []).find((s) => s.name === word);
            if (sub)
                return {
                    id: c.id,
                    name: c.name,
                    type: 1,
                    options: [{ name: o.name, type: 2, options: [{ name: word, type: 1, options }] }],
                };
        }
    }
    throw new Error(`no slash command ${word} registered`);
}
async function slash(who, channel, sub, options = []) {
    await interact(who, channel, true, 2, commandData(sub, options), null);
}
async function press(who, channel, message, action, values, inGuild = true) {
    const c = control(message, action);
    if (!c) throw new Error(`no control for "${action}" on: ${text(message).slice(0, 120)}`);
    const data = { component_type: values ? 3 : 2, custom_id: c.custom_id };
    if (values) data.values = values;
    await interact(who, channel, inGuild, 3, data, message.id);
}
async function react(who, channel, message, emoji) {
    await api(who.token, "PUT", `/channels/${channel}/messages/${message}/reactions/${encodeURIComponent(emoji)}/@me`);
}

// ---- a game ----

// Opens a game at table with host, seats the four (join by the ways in joins), starts it.
async function openGame(table, host, seats, how) {
    step = `opening a game at ${table}`;
    const ch = g[table];
    if (how.open === "mention") await post(host, ch, `${mention()} new standard`);
    else await slash(host, ch, "new");
    const lobby = await until(`the lobby at ${table}`, () =>
        lastBot(host, ch, (m) => /lobby/.test(m.embeds?.[0]?.title || "") && /Players 0\/8/.test(text(m))),
    );
    if (!text(lobby).includes(`Type "${mention()} join"`))
        throw new Error(`the lobby does not tell players to mention the bot: ${text(lobby)}`);
    say(`${table}: lobby ${lobby.id}, worded "${mention()} join"`);
    for (const [i, p] of seats.entries()) {
        const way = how.joins[i];
        if (way === "mention") await post(p, ch, `${mention()} join`);
        else if (way === "reply") await post(p, ch, "join", lobby.id);
        else if (way === "slash") await slash(p, ch, "join");
        else await press(p, ch, lobby, "!illegal join");
        await until(`${p.name} in the lobby at ${table}`, async () =>
            text(await lastBot(host, ch, (m) => m.id === lobby.id)).includes(p.display),
        );
    }
    if (how.start === "mention") await post(host, ch, `${mention()} start`);
    else await press(host, ch, lobby, "!illegal start");
    await until(`the game at ${table} to start`, async () =>
        /started with/.test(text(await lastBot(host, ch, (m) => m.id === lobby.id))),
    );
    say(`${table}: started, joined by ${how.joins.join(", ")}`);
    return lobby.id;
}

// A player's hand at table, as their DM shows it (its first line names the table).
async function hand(p, table) {
    const ch = await dm(p);
    return until(`${p.name}'s hand at ${table}`, () =>
        lastBot(p, ch, (m) => text(m).startsWith(`<#${g[table]}>`) && control(m, "tb:give")),
    );
}

// host steers the table by mention or slash.
async function steer(table, host, how, command) {
    if (how === "mention") await post(host, g[table], `${mention()} ${command}`);
    else await slash(host, g[table], command);
}

// Plays the game at table, whose lobby is message `lobby`, to its result: sessions closed by
// the host, each drop taken by reactions, each case voted by the tribunal's buttons.
async function playOut(table, host, seats, how, lobby) {
    const ch = g[table];
    const drops = new Set();
    for (let session = 1; session <= 5; session++) {
        step = `session ${session} at ${table}`;
        await steer(table, host, how, "next");
        if (session === 5) break;
        const drop = await until(`drop ${session} at ${table}`, () =>
            lastBot(host, ch, (m) => m.embeds?.[0]?.title === "Drop" && !drops.has(m.id) && (m.reactions || []).length >= 4, lobby),
        );
        drops.add(drop.id);
        const emojis = drop.reactions.map((r) => r.emoji.name);
        for (const [i, p] of seats.entries()) await react(p, ch, drop.id, emojis[i % emojis.length]);
        await until(`drop ${session} to end at ${table}`, async () =>
            /is over/.test(text(await lastBot(host, ch, (m) => m.id === drop.id))),
        );
    }
    const votes = new Set();
    for (let kase = 1; ; kase++) {
        step = `case ${kase} at ${table}`;
        await steer(table, host, how, "next"); // the debate ends
        const got = await until(`a vote or the result at ${table}`, async () => {
            const all = await botMessages(host, ch, lobby);
            const result = all.find((m) => m.embeds?.[0]?.title === "Results");
            if (result) return { result };
            const vote = all.filter((m) => m.embeds?.[0]?.title === "Tribunal" && !votes.has(m.id) && control(m, "abstain")).pop();
            return vote ? { vote } : null;
        });
        if (got.result) return got.result;
        votes.add(got.vote.id);
        for (const p of seats) await press(p, ch, got.vote, "abstain");
        await steer(table, host, how, "next"); // the vote closes
    }
}

// No message at table keeps a control but the result's Play again.
async function assertClosed(table, who) {
    for (const m of await botMessages(who, g[table])) {
        const left = controls(m).filter((c) => !(c.custom_id || "").endsWith("#!illegal rematch"));
        if (left.length) throw new Error(`${table}: controls left on "${text(m).slice(0, 80)}"`);
    }
}

// ---- the run ----

async function twoTables() {
    const { alice, bob, carol, dave, erin, frank, grace } = users;
    const l1 = await openGame("table-1", alice, [alice, bob, carol, dave], {
        open: "mention",
        joins: ["slash", "mention", "reply", "button"],
        start: "mention",
    });
    const l2 = await openGame("table-2", erin, [erin, bob, frank, grace], {
        open: "slash",
        joins: ["button", "button", "mention", "reply"],
        start: "button",
    });
    step = "offers to the player at two tables";
    for (const [from, table] of [
        [alice, "table-1"],
        [erin, "table-2"],
    ]) {
        const h = await hand(from, table);
        const give = control(h, "tb:give").options[0].value;
        await post(from, await dm(from), `offer ${bob.display} ${give} for nothing`);
    }
    const bobDm = await dm(bob);
    const offer = async (table) =>
        until(`bob's offer from ${table}`, () =>
            lastBot(bob, bobDm, (m) => text(m).startsWith(`<#${g[table]}>`) && control(m, "accept 1")),
        );
    const o1 = await offer("table-1"), o2 = await offer("table-2");
    say("bob's two offers #1 name their tables: <#table-1> and <#table-2>");
    await press(bob, bobDm, o2, "accept 1", null, false);
    await until("bob's accept at table-2", async () =>
        (await botMessages(bob, bobDm)).some((m) => /You accepted offer #1/.test(text(m))),
    );
    if ((await botMessages(bob, bobDm)).some((m) => /several games/.test(text(m))))
        throw new Error("bob was asked which game after a button");
    say("bob accepted table-2's offer by its button, without being asked which game");
    await post(bob, bobDm, "hand");
    const asked = await until("the which-game answer", () =>
        lastBot(bob, bobDm, (m) => /several games/.test(text(m))),
    );
    if (!text(asked).includes(`<#${g["table-1"]}>`) || !text(asked).includes(`<#${g["table-2"]}>`))
        throw new Error(`the which-game answer names no channels: ${text(asked)}`);
    say(`typed "hand": ${text(asked)}`);
    await press(bob, bobDm, o1, "decline 1", null, false);
    await until("bob's decline at table-1", async () =>
        (await botMessages(bob, bobDm)).some((m) => /declined/.test(text(m))),
    );
    const r1 = await playOut("table-1", alice, [alice, bob, carol, dave], "mention", l1);
    say(`table-1 over: ${text(r1).split("\n")[0]}`);
    const r2 = await playOut("table-2", erin, [erin, bob, frank, grace], "slash", l2);
    say(`table-2 over: ${text(r2).split("\n")[0]}`);
    await sleep(2000);
    await assertClosed("table-1", alice);
    await assertClosed("table-2", erin);
    say("no control left at either table but Play again");
}

async function event() {
    const mod = users.mod;
    const players = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"].map((n) => users[n]);
    step = "the event";
    await post(mod, g.hall, `${mention()} event open Friday`);
    const opened = await until("the event", () => lastBot(mod, g.hall, (m) => /is open, run by/.test(text(m))));
    if (!text(opened).includes(`${mention()} event join`)) throw new Error(`the event's words: ${text(opened)}`);
    for (const [i, p] of players.entries()) {
        if (i % 2) await slash(p, g.hall, "event", [{ name: "action", type: 3, value: "join" }]);
        else await post(p, g.hall, `${mention()} event join`);
    }
    await until("eight sign-ups", async () => {
        const lists = (await botMessages(mod, g.hall)).filter((m) => /Signed up for/.test(text(m)));
        if (lists.length > 1) throw new Error(`${lists.length} sign-up messages, not one`);
        return lists.length === 1 && /8 players/.test(text(lists[0]));
    });
    say("eight sign-ups, one list in the hall, edited");
    await post(mod, g["table-1"], `${mention()} event table`);
    await post(mod, g["table-2"], `${mention()} event table`);
    await until("two event tables", () => lastBot(mod, g["table-2"], (m) => /table 2 of/.test(text(m))));
    await post(mod, g.hall, `${mention()} event seat`);
    await until("the seating", () => lastBot(mod, g.hall, (m) => /Seating for round 1/.test(text(m))));
    await post(mod, g.hall, `${mention()} event start`);
    const lobbies = {};
    for (const table of ["table-1", "table-2"]) {
        const lobby = await until(`the event's game at ${table}`, () =>
            lastBot(mod, g[table], (m) => /lobby/.test(m.embeds?.[0]?.title || "") && /started with/.test(text(m)) && /hosted by mod/.test(text(m))),
        );
        const seated = players.filter((p) => text(lobby).split("started with")[1].includes(p.display));
        lobbies[table] = lobby.id;
        const r = await playOut(table, mod, seated, "mention", lobby.id);
        say(`event, ${table} over: ${text(r).split("\n")[0]}`);
    }
    await until("the round's end", () => lastBot(mod, g.hall, (m) => /is over at every table/.test(text(m))));
    await post(mod, g.hall, `${mention()} event close`);
    await until("the event's close", () => lastBot(mod, g.hall, (m) => /is closed/.test(text(m))));
    for (const table of ["table-1", "table-2"])
        if ((await botMessages(mod, g[table], lobbies[table])).some((m) => /closes if its lobby/.test(text(m))))
            throw new Error(`${table}: an event table spoke of an idle lobby`);
    await assertClosed("table-1", mod);
    await assertClosed("table-2", mod);
    say("event closed; no event table spoke of idle lobbies; no control left but Play again");
}

let daemon;
try {
    await setUp();
    daemon = startDaemon();
    step = "the bot's slash commands";
    // Spacebar stores a bulk overwrite one command at a time: wait until two reads agree
    let seen = -1;
    const cmds = await until("the bot's slash commands", async () => {
        const list = await api(`Bot ${g.botToken}`, "GET", `/applications/${g.app}/guilds/${g.guild}/commands`);
        const n = list?.length || 0;
        const settled = n > 0 && n === seen;
        seen = n;
        return settled ? list : null;
    });
    g.commands = cmds;
    const host = cmds.find((c) => c.name === "illegal")?.options?.find((o) => o.type === 2);
    say(`slash commands registered: ${cmds.map((c) => "/" + c.name).join(" ")}; /illegal ${host?.name}: ${(host?.options || []).map((s) => s.name).join(" ")}`);
    await sleep(1000); // the gateway session
    await twoTables();
    await event();
    say("all went as it should");
} catch (e) {
    console.error(`FAILED at ${step}: ${e.message}`);
    process.exitCode = 1;
} finally {
    if (daemon) {
        daemon.child.kill("SIGTERM");
        await sleep(1500);
        console.log(`daemon log: ${daemon.log}`);
    }
}
