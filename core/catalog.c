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
