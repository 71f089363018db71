import { bannerText } from '../../../src/process/main';

describe('bannerText', () => {
  const config = { http: { host: '0.0.0.0', port: 8080 }, adminHttp: undefined };
  const ports = { httpPort: 8080, adminPort: undefined, processes: 1 };
  const banner = (schemaRegistryUrl: string) =>
    bannerText(config, { kind: 'env', kafkaBrokers: ['kafka:9092'], schemaRegistryUrl }, ports);

  it('never prints a password given in SCHEMA_REGISTRY_URL', () => {
    const text = banner('https://registry-user:s3cret-pass@registry.example.com:8081/');
    expect(text).not.toContain('s3cret-pass');
    expect(text).toContain('Schema registry https://registry-user:[redacted]@registry.example.com:8081/');
  });

  it('prints a registry URL without credentials as it is', () => {
    expect(banner('http://127.0.0.1:8081')).toContain('Schema registry http://127.0.0.1:8081\n');
  });

  it('names the cluster and its brokers', () => {
    const text = banner('http://127.0.0.1:8081');
    expect(text).toContain('Hookline is up (env cluster, 1 process).');
    expect(text).toContain('Kafka brokers   kafka:9092');
  });
});
