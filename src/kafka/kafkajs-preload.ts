import { preloadGroupMessages, type PreloadResult } from './group-messages';

/**
 * Run once, on import: src/kafka/kafkajs.ts imports this before kafkajs. Under jest this says
 * 'applied' but has no effect: jest loads modules through a registry of its own and ignores
 * Node's module cache, so tests run kafkajs's own grouping (the same results; the unit test of
 * group-messages.ts checks the preload in a real node process). In an application that uses the
 * producer library, its kafkajs gets Hookline's grouping too, unless it loaded kafkajs first, as
 * it gets the other changes of `applyKafkajsFixes`.
 */
export const groupMessagesPreload: PreloadResult = preloadGroupMessages();
