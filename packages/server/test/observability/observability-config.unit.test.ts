// The operators' switches: METRICS_PORT / METRICS_HOST for the metrics listener, and the OTEL_* variables that turn
// tracing on (and off).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('METRICS_PORT and METRICS_HOST', () => {
  it('default to 127.0.0.1:9464', () => {
    expect(loadConfig({}).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
  });

  it('take a port, 0 for a free one, a host, and off', () => {
    expect(loadConfig({ METRICS_PORT: '9100', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({
      host: '0.0.0.0',
      port: 9100,
    });
    expect(loadConfig({ METRICS_PORT: '0' }).metrics?.port).toBe(0);
    expect(loadConfig({ METRICS_PORT: 'off' }).metrics).toBeNull();
    expect(loadConfig({ METRICS_PORT: 'OFF' }).metrics).toBeNull();
  });

  it.each(['no', '-1', '65536', '9464x'])('refuse METRICS_PORT=%s, naming it', (value) => {
    expect(() => loadConfig({ METRICS_PORT: value })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_PORT: value })).toThrow(/METRICS_PORT/);
  });
});

describe('tracing', () => {
  it.each([
    [{}, false],
    [{ OTEL_SERVICE_NAME: 'plant-store' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
  ])('with %j is %s', (env, on) => {
    expect(loadConfig(env).tracing).toBe(on);
  });
});
