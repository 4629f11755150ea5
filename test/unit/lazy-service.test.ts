import { describe, expect, it } from 'vitest';
import { lazyService } from '../../shared/http/lazy-service.ts';

const module = { double: (n: number) => n * 2, later: async (text: string) => `${text}!`, LIMIT: 3 };

describe('lazyService (decision 337)', () => {
  it('loads the module at the first call, once, and answers every function as a promise', async () => {
    let loads = 0;
    const service = lazyService(async () => {
      loads++;
      return module;
    });
    expect(loads).toBe(0);
    await expect(service.double(21)).resolves.toBe(42);
    await expect(service.later('done')).resolves.toBe('done!');
    expect(loads).toBe(1);
    expect(service.double).toBe(service.double);
  });

  it('is not a thenable, and names a missing function when it is called', async () => {
    const service = lazyService(async () => module);
    expect((service as unknown as { then?: unknown }).then).toBeUndefined();
    await expect((service as unknown as Record<string, () => Promise<unknown>>).LIMIT()).rejects.toThrow(
      'no function LIMIT',
    );
  });

  it('tries a failed load again at the next call', async () => {
    let loads = 0;
    const service = lazyService(async () => {
      if (++loads === 1) throw new Error('first load failed');
      return module;
    });
    await expect(service.double(1)).rejects.toThrow('first load failed');
    await expect(service.double(2)).resolves.toBe(4);
    expect(loads).toBe(2);
  });
});
