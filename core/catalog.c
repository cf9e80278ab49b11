/*
 * catalog.c - the message catalog. English is the reference language.
 *
 * Placeholders in braces are filled by the renderer. Keep keys grouped by
 * prefix: card., error., and the bot's msg. keys.
 */
#include <string.h>

#include "catalog.h"

struct entry {
    const char *key;
    const char *text;
};

static const struct entry english[] = {
    /* Resource cards. */
    {"card.luxury-cars", "Luxury Cars"},
    {"card.guns", "Guns"},
    {"card.jewelry", "Jewelry"},
    {"card.alcohol", "Alcohol"},
    {"card.pornography", "Pornography"},
    {"card.secret-files", "Secret Files"},
    {"card.call-girls", "Call Girls"},
    {"card.powder", "Powder"},
    /* Dealer roles. */
    {"card.dealer:luxury-cars", "The Car Thief"},
    {"card.dealer:guns", "The Arms Dealer"},
    {"card.dealer:jewelry", "The Jewelry Thief"},
    {"card.dealer:alcohol", "The Alcohol Dealer"},
    {"card.dealer:pornography", "The Porn Publisher"},
    {"card.dealer:secret-files", "The Hacker"},
    {"card.dealer:call-girls", "The Pimp"},
    {"card.dealer:powder", "The Powder Dealer"},
    /* Buyer roles. */
    {"card.buyer:luxury-cars", "The African President"},
    {"card.buyer:guns", "General Guerillero"},
    {"card.buyer:jewelry", "The Swiss Banker"},
    {"card.buyer:alcohol", "The Hollywood Star"},
    {"card.buyer:pornography", "The Obsessed Porn Collector"},
    {"card.buyer:secret-files", "The C.I.A. Director"},
    {"card.buyer:call-girls", "The Rich Emir"},
    {"card.buyer:powder", "The Rock Star"},
    /* Suspect cards name the role they accuse. */
    {"card.suspect-dealer:luxury-cars", "Suspect: The Car Thief"},
    {"card.suspect-dealer:guns", "Suspect: The Arms Dealer"},
    {"card.suspect-dealer:jewelry", "Suspect: The Jewelry Thief"},
    {"card.suspect-dealer:alcohol", "Suspect: The Alcohol Dealer"},
    {"card.suspect-dealer:pornography", "Suspect: The Porn Publisher"},
    {"card.suspect-dealer:secret-files", "Suspect: The Hacker"},
    {"card.suspect-dealer:call-girls", "Suspect: The Pimp"},
    {"card.suspect-dealer:powder", "Suspect: The Powder Dealer"},
    {"card.suspect-buyer:luxury-cars", "Suspect: The African President"},
    {"card.suspect-buyer:guns", "Suspect: General Guerillero"},
    {"card.suspect-buyer:jewelry", "Suspect: The Swiss Banker"},
    {"card.suspect-buyer:alcohol", "Suspect: The Hollywood Star"},
    {"card.suspect-buyer:pornography", "Suspect: The Obsessed Porn Collector"},
    {"card.suspect-buyer:secret-files", "Suspect: The C.I.A. Director"},
    {"card.suspect-buyer:call-girls", "Suspect: The Rich Emir"},
    {"card.suspect-buyer:powder", "Suspect: The Rock Star"},
    /* Words the card parser accepts besides the names, separated by '|'. */
    {"alias.luxury-cars", "cars|car|luxury"},
    {"alias.jewelry", "jewels|jewel|jewellery"},
    {"alias.alcohol", "booze"},
    {"alias.pornography", "porn"},
    {"alias.secret-files", "files|secrets"},
    {"alias.call-girls", "girls"},
    /* Durations. */
    {"time.seconds", "{a} s"},
    {"time.minutes", "{a} min"},
    {"time.minutes-seconds", "{a} min {b} s"},
    {"time.hours", "{a} h"},
    {"time.hours-minutes", "{a} h {b} min"},
    {"time.days", "{a} d"},
    {"time.days-hours", "{a} d {b} h"},
    /* Command parsing and name resolution. */
    {"parse.unknown", "Unknown command. {help}"},
    {"parse.usage", "Usage: {usage}"},
    {"parse.too-long", "That command is too long."},
    {"resolve.unknown-card", "No card called \"{word}\". Cards in this game: {choices}."},
    {"resolve.ambiguous-card", "\"{word}\" could be several cards: {choices}."},
    {"resolve.not-tradable", "\"{word}\" is a role or suspect card: those can never be traded."},
    {"resolve.bad-count",
     "Write cards like \"2 guns 1 alcohol\" (counts from 1 to 99), or \"nothing\"."},
    {"resolve.unknown-player", "No player called \"{word}\". Players: {choices}."},
    {"resolve.ambiguous-player", "\"{word}\" could be several players: {choices}."},
    /* Command syntax: the usage lines and the help lists are made of these. */
    {"usage.table", "!illegal {syntax}"},
    {"usage.private", "{syntax}"},
    {"usage.with-example", "{syntax}, e.g. {example}"},
    {"syntax.new", "new [standard|advanced|casual]"},
    {"syntax.rematch", "rematch"},
    {"syntax.join", "join"},
    {"syntax.leave", "leave"},
    {"syntax.start", "start"},
    {"syntax.status", "status"},
    {"syntax.rules", "rules"},
    {"syntax.help", "help"},
    {"syntax.grab", "grab <card>"},
    {"syntax.pause", "pause"},
    {"syntax.resume", "resume"},
    {"syntax.extend", "extend <duration>"},
    {"syntax.next", "next"},
    {"syntax.kick", "kick <player>"},
    {"syntax.end", "end"},
    {"syntax.set", "set <preset|variant|resources|tribunal|start-at|tribunal-at|ballots|session|"
                   "reveal|grab|debate|vote> <value>"},
    {"syntax.hand", "hand"},
    {"syntax.offer", "offer <player> <cards> for <cards>"},
    {"example.offer", "offer bob 2 guns for 1 alcohol"},
    {"syntax.offers", "offers"},
    {"syntax.accept", "accept <offer number>"},
    {"syntax.decline", "decline <offer number>"},
    {"syntax.cancel", "cancel <offer number>"},
    {"syntax.vote", "vote [case] <player>"},
    {"syntax.abstain", "abstain [case]"},
    /* Help and rules. */
    {"msg.help-stranger",
     "Hello! This bot hosts games of Illegal, a party game of secret roles, private trades and a "
     "final tribunal, for 4 to 8 players. To play, go to a group chat the bot is in: \"!illegal "
     "new\" opens a game there, the others type \"!illegal join\", and the host starts it with "
     "\"!illegal start\". Your roles, hand and trades then come to you here, in private. "
     "\"!illegal rules\" there explains the game."},
    {"help.table",
     "Table commands: !illegal {commands}. For the host and moderators: {host}. During a game, "
     "trading happens in private with the bot: send it \"help\" there for the trading "
     "commands."},
    {"help.private",
     "Trading room commands: {commands}. Cards are written like \"2 guns 1 alcohol\", or "
     "\"nothing\" for a gift. In several games at once? Start with the game id: \"g3 hand\"."},
    {"msg.rules",
     "Illegal: each player secretly holds a dealer role (you start with 5 of its resource) and "
     "a buyer role (+1 point per card of its resource at the end). Trade in private during 5 "
     "dealing sessions; between sessions a drop of new cards arrives and each player grabs "
     "one. Then the Tribunal: suspect cards are shown and everyone votes on who holds those "
     "roles; the player with the most votes takes them. A suspect card that is right costs "
     "5 points, a wrong one gives 1. Most points wins; ties share the win."},
    /* Lobby and table. */
    {"msg.nothing", "nothing"},
    {"msg.nobody", "nobody"},
    {"msg.no-votes", "no votes"},
    {"msg.lobby",
     "Illegal game {id} ({variant}), hosted by {host}. Players {count}/8: {players}. "
     "Type \"!illegal join\" to play; the host starts with \"!illegal start\" (4 to 8 players)."},
    {"msg.settings",
     "Settings: {preset}; sessions of {session}, grabs of {grab}, debates of {debate}, votes of "
     "{vote}."},
    {"preset.quick", "a quick game (about 10 minutes)"},
    {"preset.standard", "the rulebook's game"},
    {"preset.casual", "casual play (long sessions)"},
    {"preset.custom", "custom timers"},
    {"msg.lobby-start-at", "It starts by itself at {time} if 4 to 8 players have joined by then."},
    {"msg.start-at-too-few",
     "The scheduled start has come, but only {count} players have joined: the game needs 4 to 8. "
     "The host can start it later with \"!illegal start\"."},
    {"msg.settings-tribunal", "Tribunal: {options}."},
    {"msg.lobby-started",
     "Illegal game {id} ({variant}), hosted by {host}: started with {players}."},
    {"msg.game-exists", "A game ({id}) is already open at this table."},
    {"msg.lobby-expiry",
     "Game {id} closes if its lobby sees no join, leave, setting or start for {idle}."},
    {"msg.lobby-expired", "Game {id} closed: its lobby was idle for {idle}."},
    {"msg.lobby-limit",
     "You already host {max} open lobbies; start or end one before opening another."},
    {"msg.no-game", "No game at this table. Open one with \"!illegal new\"."},
    {"msg.no-rematch", "There is no finished game at this table to play again."},
    {"msg.already-joined", "You are already in this game."},
    {"msg.not-joined", "You are not in this game."},
    {"msg.table-full", "The game is full (8 players)."},
    {"msg.name-is-id",
     "Your display name \"{name}\" is another player's id in this game; change it to join."},
    {"msg.already-started", "The game has already started."},
    {"msg.not-started", "The game has not started yet."},
    {"msg.too-few", "A game needs at least 4 players; {count} joined so far."},
    {"msg.dms-closed",
     "The game cannot start yet: {players} must allow direct messages from the bot, then the "
     "host can start again."},
    {"msg.dm-lost",
     "{player} cannot get direct messages from the bot, so their trading room is closed: "
     "{player}, allow direct messages from the bot, then type \"hand\" to it."},
    {"msg.checking-dms", "Checking that every player can receive direct messages..."},
    {"msg.not-moderator", "Only the host or a moderator can do that."},
    {"msg.not-player", "Only the game's players can do that."},
    {"msg.set-done", "{key} is now {value}."},
    {"msg.set-bad-key",
     "Unknown setting \"{key}\". Settings: variant, resources, ballots, session, reveal, grab, "
     "debate, vote."},
    {"msg.ballots-poll",
     "ballots is now poll: votes are cast in a poll at the table where the platform has polls. "
     "On some platforms everyone can see poll answers; \"!illegal set ballots private\" keeps "
     "them secret."},
    {"msg.set-bad-value", "\"{value}\" is not a valid value for {key}."},
    {"msg.set-lobby-only", "{key} can only be changed before the game starts."},
    {"msg.set-game-only", "{key} can only be set once the game has started."},
    {"msg.status-lobby", "Game {id} ({variant}) is waiting for players: {count}/8 ({players})."},
    {"msg.status-game",
     "Game {id} ({variant}): {phase}{paused}. Time left: {left}. Players: {players}."},
    {"msg.status-game-untimed", "Game {id} ({variant}): {phase}. Players: {players}."},
    {"msg.status-paused", " (paused)"},
    {"phase.dealing", "dealing session {session} of 5"},
    {"phase.drop-reveal", "drop {drop} of 4 is being revealed"},
    {"phase.drop-grab", "drop {drop} of 4: grab a card"},
    {"phase.tribunal-hold", "dealing is over; the Tribunal waits for its time or the host"},
    {"phase.debate", "Tribunal, case {case} of {cases}: debate"},
    {"phase.vote", "Tribunal, case {case} of {cases}: vote"},
    {"phase.over", "game over"},
    {"msg.ended", "Game {id} was ended by {player}."},
    {"msg.store-failed", "That could not be saved, so it did not happen. Please try again."},
    {"msg.not-in-game", "You are not in a running game."},
    {"msg.which-game", "You are in several games: {games}. Start your command with the game id, "
                       "e.g. \"{example} hand\"."},
    {"msg.no-such-game", "You are not a player of game {id}."},
    {"msg.reminder-60", "One minute left."},
    {"msg.reminder-10", "10 seconds left!"},
    {"msg.nudge-offer",
     "Game {id}: an offer is waiting for your answer, and this session ends in {left}. Send "
     "\"offers\" to see it. (\"reminders off\" stops these messages.)"},
    {"msg.nudge-grab",
     "Game {id}: you have not taken a card from the drop, and it closes in {left}; then you get "
     "a card nobody took. (\"reminders off\" stops these messages.)"},
    {"msg.nudge-vote",
     "Game {id}: you have not voted on the open case, and the vote closes in {left}. Send "
     "\"vote <player>\" or \"abstain\". (\"reminders off\" stops these messages.)"},
    {"msg.reminders-off", "No more reminders from game {id}. \"reminders on\" brings them back."},
    {"msg.reminders-on", "You will be reminded in private when game {id} waits for you."},
    {"syntax.reminders", "reminders <on|off>"},
    {"summary.reminders", "Turn the private reminders of your game on or off"},
    {"slash.option.state", "on or off"},
    {"syntax.replace", "replace <player>"},
    {"summary.replace", "Offer a player's seat to someone else, who takes it over with join"},
    {"msg.seat-open",
     "{player}'s seat in game {id} is open: anyone not playing can take it over with "
     "\"!illegal join\". {player} plays on until then."},
    {"msg.seat-already-open", "That seat is already open for someone else to take over."},
    {"msg.leave-confirm",
     "Your seat is offered to someone else; you play on until it is taken. Type \"!illegal "
     "leave\" again to leave at once: your seat then leaves the game."},
    {"msg.seat-taken", "{new} takes over {old}'s seat."},
    {"msg.absent-you",
     "You have made no move in game {id} for {idle}. It goes on without you (an unanswered vote "
     "counts for nobody, an untaken drop card comes to you by chance); the host may hand your "
     "seat to someone else."},
    {"msg.absent-table",
     "{player} has made no move for {idle}. The host can offer the seat to someone else with "
     "\"!illegal replace {player}\"."},
    {"msg.seat-handed", "{new} took over your seat in game {id}. Thanks for playing!"},
    {"msg.seat-yours",
     "You take over {old}'s seat in game {id}: the roles, hand and offers are yours now, and "
     "secret. Send \"help\" for the trading commands."},
    {"msg.no-offers", "You have no open offers."},
    {"msg.offers", "Open offers: {list}"},
    {"msg.offer-line", "#{id} {from} -> {to}: {give} for {ask}"},
    /* Game events. */
    {"msg.game-started",
     "The game begins with {count} players: {players}. Resources in play: {resources}. "
     "Everyone's secret roles and hand arrive by DM."},
    {"msg.dealt",
     "Your secret roles. Dealer: {dealer} (you start with 5 {deals}). Buyer: {buyer} (each "
     "{buys} you hold at the end scores 1 point). Never tell anyone."},
    {"msg.hand", "Your roles: {dealer} / {buyer} (you score {buys}). Your hand: {hand}."},
    {"msg.hand-suspects",
     "Your roles: {dealer} / {buyer} (you score {buys}). Your hand: {hand}. Suspect cards "
     "against you: {suspects}."},
    {"msg.session-opened",
     "Dealing session {number} of 5 is open for {duration}. Trade in private: DM the bot "
     "\"offer <player> <cards> for <cards>\"."},
    {"msg.session-opened-casual",
     "Dealing session {number} of 5 is open for {duration}. Take your time and trade in "
     "private with the bot's \"offer\" command."},
    {"msg.session-closed", "Dealing session {number} is over; open offers have expired."},
    {"msg.offer-sent",
     "Offer #{id} to {to}: you give {give} and ask {ask}. \"cancel {id}\" withdraws it."},
    {"msg.offer-received",
     "Offer #{id} from {from}: you would get {give} and give {ask}. Reply \"accept {id}\" or "
     "\"decline {id}\"."},
    {"msg.offer-accepted-offerer", "{to} accepted offer #{id}: you gave {give} and got {ask}."},
    {"msg.offer-accepted-receiver", "You accepted offer #{id}: you got {give} and gave {ask}."},
    {"msg.offer-declined", "Offer #{id} ({from} -> {to}) was declined."},
    {"msg.offer-cancelled", "Offer #{id} ({from} -> {to}) was cancelled."},
    {"msg.offer-expired", "Offer #{id} ({from} -> {to}) expired with the session."},
    {"msg.drop-started",
     "New resources arriving at the docks! Drop {number} of 4 is being revealed; grab one card "
     "once all are shown."},
    {"msg.drop-started-casual", "Drop {number} of 4: each player draws one card in private."},
    {"msg.drop-reveal", "Drop {number}: {cards}"},
    {"msg.drop-closed", "Drop {number} is over: {cards}."},
    {"msg.drop-card", "{emoji} {card}"},
    {"msg.drop-card-taken", "{emoji} {card} \xE2\x86\x92 {player}"},
    {"msg.drop-card-leftover", "{emoji} {card} \xE2\x86\x92 {player} (left over)"},
    {"msg.drop-card-gone", "{emoji} {card} (taken)"},
    {"msg.drop-open",
     "Drop {number}: {cards}. Grab one now: react with its emoji or type \"!illegal grab "
     "<card>\". One card each."},
    {"msg.drew", "You drew {card} from drop {number}."},
    {"msg.tribunal-opened",
     "Dealing is over. The Tribunal opens: {count} cases to judge. Debate each one, then vote "
     "in private."},
    {"msg.tribunal-held",
     "Dealing is over. The Tribunal opens when the host types \"!illegal next\"."},
    {"msg.tribunal-held-until", "Dealing is over. The Tribunal opens at {time}."},
    {"msg.tribunal-scheduled", "The Tribunal will open at {time}."},
    {"msg.tribunal-unscheduled", "The Tribunal no longer has a set time."},
    {"msg.case-opened", "Case {number} of {count}: {cards}. Who is it? Debate for {duration}."},
    {"msg.vote-opened",
     "Vote on case {number} ({cards}): everyone votes in private, with \"vote <player>\" or "
     "\"abstain\". Votes stay secret until the tally."},
    {"msg.ballot", "Your ballot for case {number} ({cards}): answer here with \"vote <player>\" or "
                   "\"abstain\". Votes stay secret until the tally."},
    {"msg.vote-recorded",
     "Your vote on case {number}: {player}. You can change it until the vote closes."},
    {"msg.abstained", "You abstain on case {number}."},
    {"msg.votes-cast", "Case {number}: {voted} of {voters} have voted."},
    {"msg.vote-withdrawn",
     "{player} has left the game, so your vote on case {number} no longer counts. You may vote "
     "again."},
    {"msg.verdict-convicted", "Verdict on case {number}: {player} takes {cards}. Votes: {tally}."},
    {"msg.verdict-discarded",
     "Verdict on case {number}: no single majority, {cards} are discarded. Votes: {tally}."},
    {"msg.game-over", "Game over! Winner: {winners}.\n{ranking}"},
    {"msg.rank-line",
     "{rank}. {player}: {score} ({parts}). {dealer} and {buyer}, holding {cards}."},
    {"msg.score-resources", "{resource} {count}"},
    {"msg.score-wrong", "wrong suspicions +{count}"},
    {"msg.score-right", "right suspicions −{penalty}"},
    {"msg.paused", "The game is paused."},
    {"msg.resumed", "The game resumes: {duration} left."},
    {"msg.extended", "Extra time: {duration} left."},
    {"msg.player-removed", "{player} has left the game."},
    {"msg.timer-set", "From now on, {timer} lasts {duration}."},
    /* Words of native controls (Discord buttons, menus, embeds, slash commands). */
    {"ui.accept", "Accept"},
    {"ui.decline", "Decline"},
    {"ui.cancel", "Cancel"},
    {"ui.abstain", "Abstain"},
    {"ui.offer-to", "Offer to\xE2\x80\xA6"},
    {"ui.you-give", "You give\xE2\x80\xA6 (nothing: a gift to you)"},
    {"ui.you-ask", "You ask for\xE2\x80\xA6"},
    {"ui.send-offer", "Send offer"},
    {"ui.title-lobby", "Illegal \xE2\x80\x94 lobby"},
    {"ui.title-hand", "Your hand"},
    {"ui.title-tribunal", "Tribunal"},
    {"ui.title-drop", "Drop"},
    {"ui.title-results", "Results"},
    {"slash.illegal", "Play Illegal"},
    {"summary.new", "Open a new game at this table"},
    {"summary.rematch", "Play again: the last game's players and settings, in a new lobby"},
    {"summary.join", "Join the game at this table"},
    {"summary.leave", "Leave the game"},
    {"summary.start", "Start the game"},
    {"summary.status", "Show the game's phase and time left"},
    {"summary.rules", "Show the rules"},
    {"summary.help", "List the commands"},
    {"summary.grab", "Grab a card from the drop"},
    {"summary.pause", "Moderators: pause the game"},
    {"summary.resume", "Moderators: resume the game"},
    {"summary.extend", "Moderators: extend the current phase"},
    {"summary.next", "Moderators: skip to the next phase"},
    {"summary.kick", "Moderators: remove a player"},
    {"summary.end", "Moderators: end the game"},
    {"summary.set", "Moderators: change a setting (timers, variant, ballots)"},
    {"summary.hand", "Show your roles and hand (only you see it)"},
    {"summary.offers", "List your open offers"},
    {"summary.offer", "Offer a trade"},
    {"summary.accept", "Accept an offer"},
    {"summary.decline", "Decline an offer"},
    {"summary.cancel", "Cancel your offer"},
    {"summary.vote", "Vote in the tribunal"},
    {"summary.abstain", "Abstain in the tribunal"},
    {"slash.option.variant", "Rules variant"},
    {"slash.option.resource", "The card to grab"},
    {"slash.option.duration", "Time to add: 90s, 5m, 2h, 1d (a bare number is minutes)"},
    {"slash.option.player", "The player"},
    {"slash.option.key", "The setting"},
    {"slash.option.value", "Its new value"},
    {"slash.option.give", "What you give, like \"2 guns\" or \"nothing\""},
    {"slash.option.ask", "What you ask for, like \"1 alcohol\""},
    {"slash.option.id", "The offer number"},
    /* Notices the Matrix adapter sends itself. */
    {"matrix.poll-closed", "The vote is closed."},
    {"matrix.encrypted-room",
     "This room is end-to-end encrypted, and illegald cannot read encrypted messages yet. To "
     "play, use a room without encryption (encryption is chosen when a room is created and "
     "cannot be turned off) and invite the bot there. Private game messages come in an "
     "unencrypted direct chat that the bot opens with each player."},
    {"matrix.encrypted-refuse",
     "illegald does not host games in end-to-end encrypted rooms: it could read only part of "
     "the table. Create a room without encryption and invite the bot there to play."},
    /* Rule errors, keyed by il_error_id(). */
    {"error.ok", "Done."},
    {"error.bad-action", "That action is not understood."},
    {"error.bad-player-count", "A game needs 4 to 8 players."},
    {"error.bad-resources", "Choose exactly as many resources as there are players."},
    {"error.bad-timer", "Timers must be between 1 second and 7 days."},
    {"error.game-over", "The game is over."},
    {"error.wrong-phase", "That is not possible at this point of the game."},
    {"error.paused", "The game is paused."},
    {"error.not-paused", "The game is not paused."},
    {"error.not-gm", "Only the Game Master can do that."},
    {"error.not-a-player", "That is not a player in this game."},
    {"error.self-target", "You cannot trade with yourself."},
    {"error.self-vote", "You cannot vote for yourself."},
    {"error.empty-offer", "An offer must give or ask for at least one card."},
    {"error.not-tradable", "Role and suspect cards can never be traded."},
    {"error.not-in-play", "That resource is not in this game."},
    {"error.cards-not-held", "You do not hold the cards you offer."},
    {"error.offerer-lacks-cards", "The other player no longer holds the cards they offered."},
    {"error.receiver-lacks-cards", "You do not hold the cards asked for in return."},
    {"error.no-such-offer", "There is no open offer with that number."},
    {"error.not-receiver", "That offer was not made to you."},
    {"error.not-offerer", "That offer is not yours to cancel."},
    {"error.too-many-offers", "Too many open offers: cancel some first."},
    {"error.grab-not-open", "Wait until the last card is revealed."},
    {"error.already-grabbed", "You already took a card from this drop."},
    {"error.card-gone", "No such card is left on the table."},
    {"error.no-such-case", "That case is not open for votes."},
    {"error.corrupt", "The stored game is damaged."},
    {"error.unknown", "Something went wrong."},
};

int catalog_has_language(const char *lang)
{
    return lang && strcmp(lang, "en") == 0;
}

const char *catalog_text(const char *lang, const char *key)
{
    (void)lang; /* English is the only language so far, and every fallback. */
    if (!key)
        return NULL;
    for (size_t i = 0; i < sizeof english / sizeof english[0]; i++)
        if (strcmp(english[i].key, key) == 0)
            return english[i].text;
    return NULL;
}
