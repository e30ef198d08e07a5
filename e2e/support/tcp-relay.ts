/** The e2e specs use the server tests' relay (one implementation). */
export { tcpRelay, type TcpRelay } from '../../apps/server/test/tcp-relay';
