import { jobQueueContract } from './contract';
import { InProcessJobQueue } from './memory';

jobQueueContract('in-process', async () => new InProcessJobQueue(() => {}));
