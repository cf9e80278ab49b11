'use strict';
// The reference bot of `make bench`: illegald's text command job done on
// discord.js 14. It answers "!illegal status" in a guild channel with the
// body illegald answered (BENCH_REPLY, JSON) and ignores everything else,
// its own echoed messages included. BENCH_API points the REST client (and so
// GET /gateway/bot, which names the gateway) at the benchmark's fake Discord.
const { Client, GatewayIntentBits } = require('discord.js');

const body = JSON.parse(process.env.BENCH_REPLY || '{"content":"status"}');
const answer = { content: body.content, embeds: body.embeds, components: body.components };
const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages,
    GatewayIntentBits.MessageContent],
  rest: { api: process.env.BENCH_API, globalRequestsPerSecond: 100000 },
});

client.on('messageCreate', (message) => {
  if (message.author.id === client.user.id || message.content !== '!illegal status')
    return;
  const sent = body.message_reference ? message.reply(answer) : message.channel.send(answer);
  sent.catch((err) => console.error(`send: ${err.message}`));
});
client.on('error', (err) => console.error(`client: ${err.message}`));
client.login(process.env.BENCH_TOKEN).catch((err) => {
  console.error(`login: ${err.message}`);
  process.exit(1);
});
