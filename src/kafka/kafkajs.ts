/**
 * kafkajs, as Hookline's modules import it: its values come from here, never from 'kafkajs'
 * itself (types may; a lint rule says so), so that what must be in place before kafkajs loads is
 * (group-messages.ts), and its table of compression codecs holds Snappy, LZ4 and ZSTD
 * (compression.ts). The preload is this module's first import.
 */
import './kafkajs-preload';
import { CompressionCodecs } from 'kafkajs';
import { registerCompressionCodecs } from './compression';

registerCompressionCodecs(CompressionCodecs);

export * from 'kafkajs';
