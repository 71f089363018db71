import { snakeCase } from '../../../src/audiences/snake-case';

describe('snakeCase (the trait key of an audience or computed trait)', () => {
  it.each([
    ['Big Spenders', 'big_spenders'],
    ['VIP List (EU)', 'vip_list_eu'],
    ['highValueUsers', 'high_value_users'],
    ['  multiple   spaces ', 'multiple_spaces'],
    ['Top 10 Buyers', 'top_10_buyers'],
    ['buyers2024', 'buyers2024'],
    ['Café Fans', 'café_fans'],
    ['ÜBER Kunden', 'über_kunden'],
    ['Москва Users', 'москва_users'],
    ['a--b__c', 'a_b_c'],
    ['__x__', 'x'],
    ['!!!', ''],
    ['already_snake', 'already_snake'],
  ])('%j → %j', (name, key) => {
    expect(snakeCase(name)).toBe(key);
  });
});
