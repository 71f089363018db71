import { preloadGroupMessages, type PreloadResult } from './group-messages';

/** Run once, on import: src/kafka/kafkajs.ts imports this before kafkajs. */
export const groupMessagesPreload: PreloadResult = preloadGroupMessages();
