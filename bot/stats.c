/*
 * stats.c - statistics and the leaderboard of a community (a Discord server,
 * or the platform's one): read from the results every finished game leaves
 * in the store (turn.c, T6), so they survive restarts and the games' ends.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/modules.h"
#include "core/text.h"
#include "dispatch.h"
#include "store.h"

#define LEADERBOARD_ROWS 10

static const char *community_of(const struct bot_cmd *x)
{
    return x->in && x->in->community ? x->in->community : "";
}

/* The language to answer in: the table's game's, else the command's. */
static const char *language_of(const struct bot_cmd *x)
{
    const struct game *g =
        x->in && x->in->channel ? dispatch_game_at(x->d, x->p, x->in->channel) : NULL;
    return g ? g->language : x->base.lang;
}

/* A player's average score, to one decimal, as lang writes it. */
static void average(char *out, size_t len, const char *lang, const struct store_stats *st)
{
    long long tenths = st->games ? st->score_sum * 10 : 0;
    long long half = st->games / 2;
    tenths = st->games ? (tenths >= 0 ? tenths + half : tenths - half) / (long long)st->games : 0;
    text_tenths(out, len, lang, tenths);
}

void stats_reply(struct bot_cmd *x, const char *community, const char *event,
                 const struct rules_module *rules, const char *player)
{
    const char *who = player[0] ? player : x->in->user;
    struct store_stats st;
    int rc = store_stats(x->d->store, x->p->ops->name, community, event, rules ? rules->id : NULL,
                         who, &st);
    if (rc < 0) {
        cmd_reply(x, "msg.store-failed", NULL);
        return;
    }
    if (rc == 0) {
        const char *vars[] = {"player", player[0] || !x->in->user_name ? who : x->in->user_name,
                              NULL};
        cmd_reply(x, "msg.stats-none", vars);
        return;
    }
    char games[16], wins[16], tally[16], avg[32], with[16];
    snprintf(games, sizeof games, "%u", st.games);
    snprintf(wins, sizeof wins, "%u", st.wins);
    snprintf(tally, sizeof tally, "%u", st.tally);
    snprintf(with, sizeof with, "%u", st.with_computers);
    average(avg, sizeof avg, x->base.lang, &st);
    const char *vars[] = {"player", st.name, "count", games,  "wins", wins, "average",
                          avg,      "tally", tally,   "with", with,   NULL};
    /* in the words of the table's game; games with computer players told apart
     * ("<its line>-computers") */
    char key[64];
    const char *line = (rules ? rules : commands_table_game(x))->stats_line;
    snprintf(key, sizeof key, "%s%s", line, st.with_computers ? "-computers" : "");
    cmd_reply(x, key, vars);
}

/* The game a statistics command names as its first word, moving *arg past
 * it; else the table's game. */
static const struct rules_module *game_named(struct bot_cmd *x, const char **arg)
{
    size_t n = strcspn(*arg, " ");
    char word[32];
    snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : 0), *arg);
    const struct rules_module *named = rules_by_id(word);
    if (!named)
        return commands_table_game(x);
    *arg += n + strspn(*arg + n, " ");
    return named;
}

/* stats [game] [player]: a player's games, wins, average score and what
 * their game counts, in one game (the table's unless named), here; without
 * a name, the one who asks. */
void cmd_stats(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const char *arg = base->c->arg;
    base->lang = language_of(x);
    const struct rules_module *rules = game_named(x, &arg);
    stats_reply(x, community_of(x), NULL, rules, arg);
}

struct board {
    const char *lang;
    struct text_list lines;
    unsigned n;
};

static void board_row(void *arg, const struct store_stats *st)
{
    struct board *b = arg;
    char rank[16], games[16], wins[16], avg[32], line[512], level[128];
    const char *name = st->name;
    size_t prefix = strlen(STORE_COMPUTER_ROW);
    if (strncmp(st->user, STORE_COMPUTER_ROW, prefix) == 0) { /* a level's row */
        const char *vars[] = {"level", st->user + prefix, NULL};
        text_fill(level, sizeof level, b->lang, "msg.leaderboard-computer", vars);
        name = level;
    }
    snprintf(rank, sizeof rank, "%u", ++b->n);
    snprintf(games, sizeof games, "%u", st->games);
    snprintf(wins, sizeof wins, "%u", st->wins);
    average(avg, sizeof avg, b->lang, st);
    const char *vars[] = {"rank", rank, "player",  name, "count", games,
                          "wins", wins, "average", avg,  NULL};
    text_fill(line, sizeof line, b->lang, "msg.leaderboard-line", vars);
    text_list_add(&b->lines, "%s", line);
}

int stats_leaderboard_text(struct dispatcher *d, struct platform *p, const char *community,
                           const char *event, const struct rules_module *rules, bool computers,
                           unsigned rows, const char *lang, char *out, size_t len)
{
    struct board b = {.lang = lang};
    text_list_init(&b.lines, out, len, "\n");
    return store_leaderboard(d->store, p->ops->name, community, event, rules ? rules->id : NULL,
                             computers, rows, board_row, &b);
}

/* leaderboard [game] [all]: the best players here in one game (the table's
 * unless named), by wins, then average score; with "all", each level of
 * computer player ranked among them. */
void cmd_leaderboard(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    char lines[DISPATCH_TEXT_MAX - 256];
    const char *arg = base->c->arg;
    const struct rules_module *rules = game_named(x, &arg);
    bool all = strcasecmp(arg, "all") == 0;
    base->lang = language_of(x);
    if (arg[0] && !all) {
        cmd_reply_usage(x);
        return;
    }
    int n = stats_leaderboard_text(x->d, x->p, community_of(x), NULL, rules, all, LEADERBOARD_ROWS,
                                   base->lang, lines, sizeof lines);
    if (n < 0) {
        cmd_reply(x, "msg.store-failed", NULL);
        return;
    }
    const char *vars[] = {"lines", lines, NULL};
    cmd_reply(x, n ? "msg.leaderboard" : "msg.leaderboard-empty", vars);
}
